/** Connector health: the health window, an outcome's health signal, the circuit gate and approval-rate ordering. */
import { expect } from 'chai';
import {
  circuitGate,
  healthSignal,
  healthWindow,
  presentHealth,
  windowStart,
} from '../../domain/connectors/connector-health';
import { orderByApprovalRate, smoothedApprovalRate } from '../../domain/routing/routing.attempt-plan';
import { shouldTryNextConnector } from '../../workflows/lib/transaction-types';

const counts = (attempts: number, approved: number) => ({
  attempts,
  approved,
  declined: attempts - approved,
  errors: 0,
});
const plan = (...ids: string[]) => ids.map((connectorId) => ({ connectorId }));
const noExploration = { explore: 0.99, pick: 0 };

describe('connector health window', () => {
  it('approval_rate is approved / finished attempts, null with none, and since is 15 minutes back', () => {
    const now = new Date('2026-12-28T12:00:00.000Z');
    expect(healthWindow(counts(4, 3), windowStart(now))).to.deep.equal({
      attempts: 4,
      approved: 3,
      declined: 1,
      errors: 0,
      approval_rate: 0.75,
      since: '2026-12-28T11:45:00.000Z',
    });
    expect(healthWindow(counts(0, 0), now).approval_rate).to.equal(null);
    expect(healthWindow(counts(3, 1), now).approval_rate).to.equal(0.3333);
  });

  it('a closed circuit shows no opened_at or next_probe_at; a connector without a row is closed', () => {
    const window = healthWindow(counts(0, 0), new Date());
    expect(presentHealth(undefined, window)).to.include({ state: 'closed', consecutive_failures: 0, opened_at: null });
  });
});

describe('health signal of an attempt', () => {
  it('infrastructure failures count; declines and answered errors reset; an unsent attempt is neither', () => {
    expect(healthSignal('unknown', 'timeout')).to.equal('failure');
    expect(healthSignal('network_error', 'refused')).to.equal('failure');
    expect(healthSignal('processing_error', 'http_503')).to.equal('failure');
    expect(healthSignal('soft_decline', 'do_not_honor')).to.equal('success');
    expect(healthSignal('hard_decline', 'stolen_card')).to.equal('success');
    expect(healthSignal('processing_error', 'invalid_request')).to.equal('success');
    expect(healthSignal('approved', null)).to.equal('success');
    expect(healthSignal('processing_error', 'attempt_setup_failed')).to.equal('none');
  });
});

describe('circuit gate', () => {
  const now = new Date('2026-12-28T12:00:00Z');
  const row = (state: 'closed' | 'open' | 'half_open', nextProbeAt: string | null) => ({
    state,
    consecutiveFailures: 5,
    openedAt: now,
    nextProbeAt: nextProbeAt ? new Date(nextProbeAt) : null,
    lastFailureAt: now,
    lastFailureCode: 'http_500',
  });
  it('open before the probe time is skipped, due after it; a half-open probe in flight is skipped until it lapses', () => {
    expect(circuitGate(undefined, now)).to.equal('closed');
    expect(circuitGate(row('closed', null), now)).to.equal('closed');
    expect(circuitGate(row('open', '2026-12-28T12:00:01Z'), now)).to.equal('open');
    expect(circuitGate(row('open', '2026-12-28T12:00:00Z'), now)).to.equal('probe_due');
    expect(circuitGate(row('half_open', '2026-12-28T12:01:00Z'), now)).to.equal('open');
    expect(circuitGate(row('half_open', '2026-12-28T11:59:00Z'), now)).to.equal('probe_due');
  });
});

describe('approval-rate ordering', () => {
  it('orders by smoothed approval rate, best first; ties keep the rules order', () => {
    const windows = new Map([
      ['a', counts(100, 50)],
      ['b', counts(100, 90)],
      ['c', counts(100, 90)],
    ]);
    const ordered = orderByApprovalRate(plan('a', 'b', 'c'), windows, noExploration);
    expect(ordered.attempts.map((a) => a.connectorId)).to.deep.equal(['b', 'c', 'a']);
    expect(ordered.explored).to.equal(null);
    expect(ordered.scores.b).to.equal(smoothedApprovalRate(counts(100, 90)));
  });

  it('a connector without traffic scores 0.5: above a bad one, below a good one; two lucky attempts do not beat a hundred good ones', () => {
    const windows = new Map([
      ['bad', counts(50, 5)],
      ['good', counts(100, 95)],
      ['lucky', counts(2, 2)],
    ]);
    const ordered = orderByApprovalRate(plan('bad', 'new', 'lucky', 'good'), windows, noExploration);
    expect(ordered.attempts.map((a) => a.connectorId)).to.deep.equal(['good', 'lucky', 'new', 'bad']);
    expect(ordered.scores.new).to.equal(0.5);
  });

  it('explores with the exploration share: one of the others leads, chosen by the pick draw', () => {
    const windows = new Map([
      ['a', counts(100, 95)],
      ['b', counts(100, 50)],
      ['c', counts(100, 10)],
    ]);
    const first = orderByApprovalRate(plan('a', 'b', 'c'), windows, { explore: 0.05, pick: 0 });
    expect(first.attempts.map((a) => a.connectorId)).to.deep.equal(['b', 'a', 'c']);
    expect(first.explored).to.equal('b');
    const last = orderByApprovalRate(plan('a', 'b', 'c'), windows, { explore: 0.05, pick: 0.999 });
    expect(last.attempts.map((a) => a.connectorId)).to.deep.equal(['c', 'a', 'b']);
    expect(orderByApprovalRate(plan('a'), windows, { explore: 0, pick: 0 }).explored).to.equal(null);
  });
});

describe('decline table (shouldTryNextConnector)', () => {
  it("without a table: today's behaviour; a table maps categories, a raw code wins; unknown always stops", () => {
    expect(shouldTryNextConnector({ outcome: 'soft_decline' })).to.equal(true);
    expect(shouldTryNextConnector({ outcome: 'hard_decline' })).to.equal(false);
    const policy = {
      categories: { soft_decline: 'stop' as const, hard_decline: 'retry_next_connector' as const },
      codes: { insufficient_funds: 'retry_next_connector' as const },
    };
    expect(shouldTryNextConnector({ outcome: 'soft_decline', rawCode: 'do_not_honor' }, policy)).to.equal(false);
    expect(shouldTryNextConnector({ outcome: 'soft_decline', rawCode: 'insufficient_funds' }, policy)).to.equal(true);
    expect(shouldTryNextConnector({ outcome: 'hard_decline' }, policy)).to.equal(true);
    expect(shouldTryNextConnector({ outcome: 'network_error' }, policy)).to.equal(true);
    expect(shouldTryNextConnector({ outcome: 'soft_decline', rawCode: 'constructor' }, policy)).to.equal(false);
    const reckless = { categories: {}, codes: { provider_outcome_unknown: 'retry_next_connector' as const } };
    expect(shouldTryNextConnector({ outcome: 'unknown', rawCode: 'provider_outcome_unknown' }, reckless)).to.equal(
      false,
    );
  });
});
