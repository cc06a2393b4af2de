/**
 * In-process cache of what authentication reads on every request: API keys by hash and which organization a
 * merchant belongs to. Entries live a short TTL in a bounded map, and every change to api_keys or merchants
 * (a trigger NOTIFYs `switchyard_auth` on update and delete, Migration20261223000000_auth_change_notifications)
 * empties the cache of every API process at once. While the LISTEN connection is down, nothing is cached or
 * served from the cache: a missed notification can never keep a revoked key alive.
 *
 * A read that started before a change may finish after the notification emptied the cache; the generation
 * ticket taken before the read keeps its (possibly stale) result out.
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

export class AuthCache {
  private readonly entries = new Map<string, Entry<unknown>>();
  private generation = 0;
  private listening = false;

  constructor(
    private readonly ttlMs = AUTH_CACHE_TTL_MS,
    private readonly maxEntries = AUTH_CACHE_MAX_ENTRIES,
  ) {}

  /** Taken before reading the database; `set` keeps the result only if nothing changed in between. */
  ticket(): number {
    return this.generation;
  }

  get<V>(key: string, now = Date.now()): V | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value as V;
  }

  set<V>(key: string, value: V, ticket: number, now = Date.now()): void {
    if (!this.listening || ticket !== this.generation) return;
    this.entries.delete(key);
    // Maps iterate in insertion order: the first key is the oldest entry.
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }

  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
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
