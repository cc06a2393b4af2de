/**
 * Fixed-window request counting per API key, kept in PostgreSQL so every API process shares one budget.
 * One atomic upsert per request (db/repositories/rate-limit-counters.repository.ts): no race between processes.
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
