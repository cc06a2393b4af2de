/**
 * Fixed-window request counting, kept in PostgreSQL so every API process shares one budget. consumeRateLimit
 * makes one atomic upsert per request (db/repositories/rate-limit-counters.repository.ts); RateLimiter, on the
 * API-key hot path, leases blocks of requests from the same counter.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { countHit } from '../../db/repositories/rate-limit-counters.repository';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
  exceeded: boolean;
}

export async function consumeRateLimit(
  em: EntityManager,
  bucket: string,
  limit: number,
  windowSeconds: number,
  now = Date.now(),
): Promise<RateLimitState> {
  const windowMs = windowSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const count = await countHit(em, bucket, new Date(windowStart));
  const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
  return { limit, remaining: Math.max(0, limit - count), resetSeconds, exceeded: count > limit };
}

export function rateLimitHeaders(state: RateLimitState, windowSeconds: number): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
    'RateLimit-Policy': `${state.limit};w=${windowSeconds}`,
  };
}

/** The budget closest to running out: what the RateLimit headers of a successful response report. */
export function tightest(states: RateLimitState[]): RateLimitState {
  return states.reduce((a, b) => (b.remaining < a.remaining ? b : a));
}

/** A process leases at most this share of what is left of a window's budget at once… */
export const LEASE_SHARE = 10;
/** …and never more than this many requests (a limit of millions would otherwise lease millions). */
export const MAX_LEASE = 1000;
/** Buckets remembered per process; past windows go first. */
const MAX_BUCKETS = 10_000;

interface Lease {
  windowStart: number;
  /** Requests this process may still admit in the window without asking the shared counter. */
  tokens: number;
  /** The shared count (capped at the limit) as of this process's last lease. */
  shared: number;
  exhausted: boolean;
  leasing?: Promise<void>;
}

/**
 * The per-key budget without a write per request: each process leases a block of requests from the shared
 * counter (one upsert adds the whole block) and admits them from memory. A block is a tenth of what was left
 * of the budget at the last lease (at least one, at most MAX_LEASE), so blocks shrink to single requests as the
 * budget runs out. The shared counter is only ever raised by what was leased, so the processes together never
 * admit more than the limit. They may admit fewer: requests another process leased and has not used yet are
 * not available here (at most a tenth of the remaining budget per other process). For a single process the
 * count, the 429 and RateLimit-Remaining are exact: remaining = limit − (leased − unused).
 */
export class RateLimiter {
  private readonly leases = new Map<string, Lease>();

  /** `em`: the request's EntityManager, asked for only when a new block is leased. */
  async consume(
    em: () => EntityManager,
    bucket: string,
    limit: number,
    windowSeconds: number,
    now = Date.now(),
  ): Promise<RateLimitState> {
    const windowMs = windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const lease = this.leaseFor(bucket, windowStart);
    while (lease.tokens === 0 && !lease.exhausted) {
      lease.leasing ??= this.extend(em(), bucket, lease, limit).finally(() => (lease.leasing = undefined));
      await lease.leasing;
    }
    const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    if (lease.tokens === 0) return { limit, remaining: 0, resetSeconds, exceeded: true };
    lease.tokens -= 1;
    return { limit, remaining: Math.max(0, limit - (lease.shared - lease.tokens)), resetSeconds, exceeded: false };
  }

  private leaseFor(bucket: string, windowStart: number): Lease {
    const current = this.leases.get(bucket);
    if (current && current.windowStart === windowStart) return current;
    const lease: Lease = { windowStart, tokens: 0, shared: 0, exhausted: false };
    this.leases.delete(bucket);
    if (this.leases.size >= MAX_BUCKETS) this.forgetPastWindows(windowStart);
    this.leases.set(bucket, lease);
    return lease;
  }

  private forgetPastWindows(windowStart: number): void {
    for (const [bucket, lease] of this.leases) if (lease.windowStart < windowStart) this.leases.delete(bucket);
    while (this.leases.size >= MAX_BUCKETS) this.leases.delete(this.leases.keys().next().value as string);
  }

  private async extend(em: EntityManager, bucket: string, lease: Lease, limit: number): Promise<void> {
    const wanted = Math.min(MAX_LEASE, Math.max(1, Math.floor((limit - lease.shared) / LEASE_SHARE)));
    const count = await countHit(em, bucket, new Date(lease.windowStart), wanted);
    // Whatever the block pushed past the limit was never available: grant only up to the limit.
    const granted = Math.max(0, Math.min(wanted, limit - (count - wanted)));
    lease.tokens += granted;
    lease.shared = Math.min(count, limit);
    if (granted === 0) lease.exhausted = true;
  }
}
