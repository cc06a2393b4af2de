/** The in-process auth cache (AuthCache, api/http/auth.ts): what it may serve and when it must not. */
import { expect } from 'chai';
import { AuthCache } from '../../api/http/auth';

function listeningCache(ttlMs = 1000, maxEntries = 3): AuthCache {
  const cache = new AuthCache(ttlMs, maxEntries);
  cache.setListening(true);
  return cache;
}

describe('auth cache', () => {
  it('serves an entry until its TTL', () => {
    const cache = listeningCache(1000);
    cache.set('k', 'v', cache.ticket(), 0);
    expect(cache.get('k', 999)).to.equal('v');
    expect(cache.get('k', 1000)).to.equal(undefined);
  });

  it('keeps out a result read before a change was notified (stale ticket)', () => {
    const cache = listeningCache();
    const ticket = cache.ticket();
    cache.invalidate();
    cache.set('k', 'stale', ticket);
    expect(cache.get('k')).to.equal(undefined);
  });

  it('serves and stores nothing while notifications may be missed (listener down)', () => {
    const cache = listeningCache();
    cache.set('k', 'v', cache.ticket());
    cache.setListening(false);
    expect(cache.get('k')).to.equal(undefined);
    cache.set('k', 'v', cache.ticket());
    expect(cache.size).to.equal(0);
  });

  it('remembers unknown keys apart: a flood of them never pushes out a cached key', () => {
    const cache = listeningCache(1000, 3);
    cache.set('key:valid', 'auth', cache.ticket(), 0);
    for (const hash of ['a', 'b', 'c', 'd']) cache.rememberUnknownKey(hash, cache.ticket(), 0);
    expect(cache.get('key:valid', 1)).to.equal('auth');
    expect(cache.isUnknownKey('a', 1)).to.equal(false);
    expect(cache.isUnknownKey('d', 1)).to.equal(true);
    expect(cache.isUnknownKey('d', 1000)).to.equal(false);
    cache.rememberUnknownKey('e', cache.ticket(), 0);
    cache.invalidate();
    expect(cache.isUnknownKey('e', 1)).to.equal(false);
  });

  it('is bounded: the oldest entries go first', () => {
    const cache = listeningCache(1000, 3);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, key, cache.ticket());
    expect(cache.size).to.equal(3);
    expect(cache.get('a')).to.equal(undefined);
    expect(cache.get('d')).to.equal('d');
  });
});
