/**
 * Bounded memory: the outbox listener's waiting queue, the per-merchant webhook attempt slots and provider_c's
 * OAuth token cache have a ceiling, so no burst of events or number of OAuth clients can grow a worker's memory
 * without limit.
 */
import { expect } from 'chai';
import { boundedQueue, MAX_WAITING_FAN_OUTS } from '../../worker/outbox-listener';
import { deferralMs, MAX_DEFERRAL_MS, MerchantSlots } from '../../activities/webhooks/deliver';
import { TokenCache } from '../../domain/connectors/provider_c/token-cache';
import { TOKEN_CACHE_MAX_ENTRIES, tokenCache } from '../../domain/connectors/provider_c/auth';

describe('Bounded memory: the outbox fan-out queue', () => {
  it('refuses tasks beyond maxWaiting while every slot is busy, and takes them again once it drains', async () => {
    const queue = boundedQueue(2, 3);
    const releases: (() => void)[] = [];
    let started = 0;
    const blocking = () => () =>
      new Promise<void>((resolve) => {
        started += 1;
        releases.push(resolve);
      });
    const accepted = Array.from({ length: 6 }, () => queue.push(blocking()));
    expect(accepted).to.deep.equal([true, true, true, true, true, false]);
    expect(started).to.equal(2);
    expect(queue.waiting).to.equal(3);

    while (started < 5 || releases.length > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(started).to.equal(5); // the refused task never ran: its event is left to the outbox sweep
    expect(queue.waiting).to.equal(0);
    expect(queue.push(() => Promise.resolve())).to.equal(true);
    await queue.drain();
  });

  it('the listener caps its waiting notifications at MAX_WAITING_FAN_OUTS', () => {
    expect(MAX_WAITING_FAN_OUTS).to.be.a('number').and.to.be.within(1, 100_000);
  });
});

describe('Bounded memory: the provider_c OAuth token cache', () => {
  it('never holds more than maxEntries tokens: expired ones go first, then the least recently used', () => {
    const now = 1_000_000;
    const cache = new TokenCache(3);
    cache.set('a', 'token-a', now + 60_000, now);
    cache.set('b', 'token-b', now + 60_000, now);
    cache.set('c', 'token-c', now - 1, now); // already expired
    cache.set('d', 'token-d', now + 60_000, now);
    expect(cache.size).to.equal(3);
    expect(cache.get('c', now)).to.equal(undefined);

    expect(cache.get('a', now)).to.equal('token-a'); // a is now more recently used than b
    cache.set('e', 'token-e', now + 60_000, now);
    cache.set('f', 'token-f', now + 60_000, now);
    expect(cache.size).to.equal(3);
    expect(['a', 'b', 'd', 'e', 'f'].filter((slot) => cache.get(slot, now) !== undefined)).to.deep.equal([
      'a',
      'e',
      'f',
    ]);
  });

  it('a token is not served past its expiry', () => {
    const cache = new TokenCache(2);
    cache.set('a', 'token-a', 2_000, 1_000);
    expect(cache.get('a', 1_999)).to.equal('token-a');
    expect(cache.get('a', 2_000)).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });

  it('provider_c authentication uses a cache bounded at TOKEN_CACHE_MAX_ENTRIES', () => {
    expect(tokenCache).to.be.instanceOf(TokenCache);
    expect(tokenCache.maxEntries).to.equal(TOKEN_CACHE_MAX_ENTRIES);
    expect(TOKEN_CACHE_MAX_ENTRIES).to.be.within(1, 100_000);
  });
});

describe('Bounded memory: per-merchant webhook attempt slots', () => {
  it('refuses a merchant past its cap while another merchant still gets a slot, and forgets a merchant with none taken', () => {
    const slots = new MerchantSlots(2);
    expect([slots.tryTake('mrc_flood'), slots.tryTake('mrc_flood'), slots.tryTake('mrc_flood')]).to.deep.equal([
      true,
      true,
      false,
    ]);
    expect(slots.tryTake('mrc_other'), "another merchant is not held up by the first one's burst").to.equal(true);
    slots.release('mrc_flood');
    expect(slots.tryTake('mrc_flood'), 'a released slot is free again').to.equal(true);
    for (const merchant of ['mrc_flood', 'mrc_flood', 'mrc_other']) slots.release(merchant);
    expect((slots as unknown as { taken: Map<string, number> }).taken.size).to.equal(0);
  });

  it('a deferred attempt asks again later each time it is deferred in a row, never after more than MAX_DEFERRAL_MS', () => {
    const waits = [0, 1, 2, 3, 4, 5, 6, 20].map((deferrals) => deferralMs(deferrals, () => 0.5));
    expect(waits.slice(0, 5)).to.deep.equal([2000, 4000, 8000, 16000, MAX_DEFERRAL_MS]);
    expect(Math.max(...waits)).to.equal(MAX_DEFERRAL_MS);
    expect(deferralMs(0, () => 0)).to.equal(1000);
  });
});
