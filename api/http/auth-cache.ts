/**
 * In-process cache of what authentication reads on every request: API keys by hash and which organization a
 * merchant belongs to. Entries live a short TTL in a bounded map, and every change to api_keys or merchants
 * (a trigger NOTIFYs `switchyard_auth` on update and delete, Migration20261223000000_auth_change_notifications)
 * empties the cache of every API process at once. While the LISTEN connection is down, nothing is cached or
 * served from the cache: a missed notification can never keep a revoked key alive.
 *
 * A read that started before a change may finish after the notification emptied the cache; the generation
 * ticket taken before the read keeps its (possibly stale) result out.
 *
 * Key hashes that matched no active key are remembered too, for the same TTL, in a bounded map of their own: a client
 * repeating one unknown key (an old deployment's revoked key) costs one read per TTL, and a flood of random keys can
 * push out only other unknown keys, never a cached valid one.
 */
import type { Orm } from '../../db/orm';
import { listen, type Listener } from '../../db/listen';

export const AUTH_CHANGES_CHANNEL = 'switchyard_auth';
export const AUTH_CACHE_TTL_MS = 10_000;
export const AUTH_CACHE_MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  expires: number;
}

/** A map with a TTL per entry and a ceiling: the oldest entries go first. */
class Entries {
  private readonly map = new Map<string, Entry<unknown>>();

  constructor(private readonly maxEntries: number) {}

  get<V>(key: string, now: number): V | undefined {
    const entry = this.map.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.map.delete(key);
      return undefined;
    }
    return entry.value as V;
  }

  set<V>(key: string, value: V, expires: number): void {
    this.map.delete(key);
    // Maps iterate in insertion order: the first key is the oldest entry.
    while (this.map.size >= this.maxEntries) this.map.delete(this.map.keys().next().value as string);
    this.map.set(key, { value, expires });
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
  }
}

export class AuthCache {
  private readonly entries: Entries;
  private readonly unknownKeys: Entries;
  private generation = 0;
  private listening = false;

  constructor(
    private readonly ttlMs = AUTH_CACHE_TTL_MS,
    maxEntries = AUTH_CACHE_MAX_ENTRIES,
  ) {
    this.entries = new Entries(maxEntries);
    this.unknownKeys = new Entries(maxEntries);
  }

  /** Taken before reading the database; `set` keeps the result only if nothing changed in between. */
  ticket(): number {
    return this.generation;
  }

  get<V>(key: string, now = Date.now()): V | undefined {
    return this.listening ? this.entries.get<V>(key, now) : undefined;
  }

  set<V>(key: string, value: V, ticket: number, now = Date.now()): void {
    if (this.listening && ticket === this.generation) this.entries.set(key, value, now + this.ttlMs);
  }

  /** Whether this key hash matched no active key when it was last read (within the TTL). */
  isUnknownKey(hash: string, now = Date.now()): boolean {
    return this.listening && this.unknownKeys.get<true>(hash, now) === true;
  }

  rememberUnknownKey(hash: string, ticket: number, now = Date.now()): void {
    if (this.listening && ticket === this.generation) this.unknownKeys.set(hash, true, now + this.ttlMs);
  }

  get size(): number {
    return this.entries.size;
  }

  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
    this.unknownKeys.clear();
  }

  setListening(listening: boolean): void {
    this.invalidate();
    this.listening = listening;
  }
}

/** The cache of one API process, emptied by every auth-relevant change in any process. */
export async function startAuthCache(orm: Orm, cache = new AuthCache()): Promise<{ cache: AuthCache } & Listener> {
  const listener = await listen(
    orm,
    AUTH_CHANGES_CHANNEL,
    () => cache.invalidate(),
    (listening) => cache.setListening(listening),
  );
  return { cache, stop: () => listener.stop() };
}
