/**
 * Bounded memory: the outbox listener's waiting queue and provider_c's OAuth token cache have a ceiling, so no
 * burst of events or number of OAuth clients can grow a worker's memory without limit.
 */
import { expect } from 'chai';
import { boundedQueue, MAX_WAITING_FAN_OUTS } from '../../worker/outbox-listener';
import { directSlots } from '../../activities/webhooks/direct-fan-out';
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

describe('Bounded memory: direct webhook attempts', () => {
  it('runs at most perEndpoint attempts per endpoint, queues a bounded number behind them, refuses the rest', async () => {
    const slots = directSlots(2, 1, 100);
    const a1 = slots.acquire('whc_a');
    const a2 = slots.acquire('whc_a');
    const a3 = slots.acquire('whc_a');
    expect(a1).to.be.instanceOf(Promise);
    expect(a2).to.be.instanceOf(Promise);
    expect(a3, 'third waits').to.be.instanceOf(Promise);
    expect(slots.acquire('whc_a'), 'no room to wait: use the workflow').to.equal(null);
    // Another endpoint is not held up by this one.
    expect(slots.acquire('whc_b')).to.be.instanceOf(Promise);
    let third = false;
    void a3?.then(() => (third = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).to.equal(false);
    slots.release('whc_a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(third, 'a freed slot passes to the waiter').to.equal(true);
    slots.release('whc_a');
    slots.release('whc_a');
    slots.release('whc_b');
    // All released: room again.
    expect(slots.acquire('whc_a')).to.be.instanceOf(Promise);
  });

  it('on close, hands every waiting attempt back (false) and refuses new ones', async () => {
    const slots = directSlots(1, 5, 100);
    expect(await slots.acquire('whc_a')).to.equal(true);
    const waiting = slots.acquire('whc_a');
    slots.close();
    expect(await waiting).to.equal(false);
    expect(slots.acquire('whc_b')).to.equal(null);
  });

  it('refuses every attempt beyond the total in flight and waiting', () => {
    const slots = directSlots(10, 10, 2);
    expect(slots.acquire('whc_a')).to.be.instanceOf(Promise);
    expect(slots.acquire('whc_b')).to.be.instanceOf(Promise);
    expect(slots.acquire('whc_c')).to.equal(null);
  });
});
