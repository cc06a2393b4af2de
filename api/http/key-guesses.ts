/**
 * Unknown API keys are cheap to refuse. A well-formed key that matches nothing costs an indexed SELECT and a pooled
 * connection, and unknown keys are never cached, so a flood of random `sk_live_…` values from one client competes
 * with every merchant for the pool. Each client address (IPv6 per /64) gets UNKNOWN_API_KEYS_PER_IP misses per
 * minute; past that it gets 429 before any lookup until the window ends. Counted in process memory, not in
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

  /** 429 when this address (or whatever the limiter counts by) has missed too often in its current window. */
  check(address: string, now = Date.now()): void {
    const window = this.windows.get(address);
    if (!window || now - window.start >= WINDOW_MS || window.misses < this.limit) return;
    const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
    throw errors.rateLimited(retryAfter, this.message);
  }

  recordMiss(address: string, now = Date.now()): void {
    const window = this.windows.get(address);
    if (window && now - window.start < WINDOW_MS) {
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
