/** The pure retry schedule of the webhook delivery workflow (workflows/webhook-delivery.shared.ts). */
import { expect } from 'chai';
import {
  MAX_ATTEMPTS,
  RETRY_AFTER_CAP_MS,
  RETRY_DELAYS_MS,
  RETRY_WINDOW_MS,
  nextAttempt,
  planRetries,
  waitBeforeNext,
} from '../../workflows/webhook-delivery.shared';

const HOUR = 3600_000;

describe('webhook retry schedule', () => {
  it('jitters each wait by at most ±10 % and the window by at most ±1 %', () => {
    const low = planRetries(() => 0);
    const high = planRetries(() => 0.999999);
    RETRY_DELAYS_MS.forEach((base, i) => {
      expect(low.delaysMs[i]).to.equal(Math.round(base * 0.9));
      expect(high.delaysMs[i]).to.be.closeTo(base * 1.1, base * 1e-5);
    });
    expect(low.windowMs).to.equal(RETRY_WINDOW_MS * 0.99);
    expect(planRetries(() => 0.5)).to.deep.equal({ delaysMs: [...RETRY_DELAYS_MS], windowMs: RETRY_WINDOW_MS });
  });

  it('plans eight attempts: six fixed waits, then the rest of the 26 h window, then none', () => {
    const plan = planRetries(() => 0.5);
    let elapsed = 0;
    const at: number[] = [0];
    for (let attempt = 1; ; attempt += 1) {
      const next = nextAttempt(plan, attempt, elapsed);
      if (!next) break;
      elapsed += waitBeforeNext(next, null);
      at.push(elapsed);
    }
    expect(at).to.have.length(MAX_ATTEMPTS);
    expect(at.slice(1, 7)).to.deep.equal([5_000, 305_000, 2_105_000, 9_305_000, 27_305_000, 63_305_000]);
    expect(at[7]).to.equal(26 * HOUR);
  });

  it('stretches a wait for Retry-After, capped at 6 h and never past the window', () => {
    expect(waitBeforeNext({ plannedDelayMs: 5_000, remainingMs: 26 * HOUR }, 600_000)).to.equal(600_000);
    expect(waitBeforeNext({ plannedDelayMs: 5 * 60_000, remainingMs: 26 * HOUR }, 1_000)).to.equal(5 * 60_000);
    expect(waitBeforeNext({ plannedDelayMs: 5_000, remainingMs: 26 * HOUR }, 10 * 24 * HOUR)).to.equal(
      RETRY_AFTER_CAP_MS,
    );
    expect(waitBeforeNext({ plannedDelayMs: 5_000, remainingMs: 2 * HOUR }, 5 * HOUR)).to.equal(2 * HOUR);
  });

  it('makes no attempt after the end of the window', () => {
    const plan = planRetries(() => 0.5);
    expect(nextAttempt(plan, 3, RETRY_WINDOW_MS)).to.equal(null);
    expect(nextAttempt(plan, MAX_ATTEMPTS, 0)).to.equal(null);
  });
});
