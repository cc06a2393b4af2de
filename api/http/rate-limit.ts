/**
 * Fixed-window request counting per API key, kept in PostgreSQL so every API process shares one budget.
 * One atomic upsert per request: no read-modify-write race between processes.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

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
  const [row] = await em.execute<{ count: number }[]>(
    `insert into rate_limit_counters (bucket, window_start, count) values (?, ?, 1)
     on conflict (bucket, window_start) do update set count = rate_limit_counters.count + 1
     returning count`,
    [bucket, new Date(windowStart)],
  );
  const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
  return { limit, remaining: Math.max(0, limit - row.count), resetSeconds, exceeded: row.count > limit };
}

export function rateLimitHeaders(state: RateLimitState, windowSeconds: number): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
    'RateLimit-Policy': `${state.limit};w=${windowSeconds}`,
  };
}
