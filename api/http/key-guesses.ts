/**
 * Unknown API keys are cheap to refuse. A well-formed key that matches nothing costs an indexed SELECT and a pooled
 * connection (once: the auth cache remembers it as unknown for a few seconds), so each client address (IPv6 per /64)
 * gets UNKNOWN_API_KEYS_PER_IP misses per minute; past that, its keys that match nothing get 429 instead of 401 until
 * the window ends. Only a miss spends or meets the budget: a valid key is answered from the auth cache or its lookup
 * before the budget is ever consulted, so a guesser cannot lock out the clients that share its address (CGNAT, an
 * office NAT, or everyone behind a proxy that is not in TRUSTED_PROXIES). Counted in process memory, not in
 * PostgreSQL: a database write per refusal is the cost this avoids (so with N API processes the bound is N times).
 */
import type { AppDeps } from '../deps';
import { errors } from '../../domain/platform/errors';

const WINDOW_MS = 60_000;
const MAX_TRACKED = 10_000;

export class KeyGuessLimiter {
  private readonly windows = new Map<string, { start: number; misses: number }>();

  constructor(
    private readonly limit: number,
    private readonly message = 'Too many unknown API keys from this address; try again later',
  ) {}

  /**
   * Counts one miss for this address (or whatever the limiter counts by); 429 instead when it has already missed
   * `limit` times in its current window. Call it only for a request already known to be refused.
   */
  spend(address: string, now = Date.now()): void {
    const window = this.windows.get(address);
    if (window && now - window.start < WINDOW_MS) {
      if (window.misses >= this.limit) {
        const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
        throw errors.rateLimited(retryAfter, this.message);
      }
      window.misses += 1;
      return;
    }
    this.windows.delete(address);
    // Maps iterate in insertion order: the first entry is the oldest window.
    while (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value as string);
    this.windows.set(address, { start: now, misses: 1 });
  }
}

const limiters = new WeakMap<AppDeps, KeyGuessLimiter>();

/** One limiter per app (AppDeps), made on first use, so nothing that builds AppDeps has to know about it. */
export function keyGuessesOf(deps: AppDeps): KeyGuessLimiter {
  let limiter = limiters.get(deps);
  if (!limiter) limiters.set(deps, (limiter = new KeyGuessLimiter(deps.config.rateLimit.unknownKeysPerIp)));
  return limiter;
}
