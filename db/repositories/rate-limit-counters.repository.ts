/**
 * rate_limit_counters (UNLOGGED): fixed-window counters shared by every API process — per-key request budgets,
 * the public-key limits per IP and session, and the decline throttle. The one owner of the table's SQL; the rules
 * that read the counts are api/http/rate-limit.ts and api/http/browser-limits.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** The longest window any counter is kept for (the decline throttle's); housekeeping keeps windows this long. */
export const LONGEST_WINDOW_SECONDS = 600;

/**
 * One atomic upsert: counts `hits` (default one) in the bucket's window and returns the new count (no
 * read-modify-write race). The API-key limiter counts a lease of several requests at once (api/http/rate-limit.ts).
 */
export async function countHit(em: EntityManager, bucket: string, windowStart: Date, hits = 1): Promise<number> {
  const [row] = await em.execute<{ count: number }[]>(
    `insert into rate_limit_counters (bucket, window_start, count) values (?, ?, ?)
     on conflict (bucket, window_start) do update set count = rate_limit_counters.count + excluded.count
     returning count`,
    [bucket, windowStart, hits],
  );
  return row.count;
}

/** Gives back one hit counted by countHit in that window (a reservation that was not used; never below zero). */
export async function refundHit(em: EntityManager, bucket: string, windowStart: Date): Promise<void> {
  await em.execute(
    'update rate_limit_counters set count = greatest(count - 1, 0) where bucket = ? and window_start = ?',
    [bucket, windowStart],
  );
}

export async function readCount(em: EntityManager, bucket: string, windowStart: Date): Promise<number> {
  const [row] = await em.execute<{ count: number }[]>(
    'select count from rate_limit_counters where bucket = ? and window_start = ?',
    [bucket, windowStart],
  );
  return row?.count ?? 0;
}

/** Deletes windows that started more than `olderThanSeconds` ago (nobody can read them any more). */
export async function purgeWindows(em: EntityManager, olderThanSeconds: number): Promise<number> {
  const result = await em.execute(
    'delete from rate_limit_counters where window_start < now() - make_interval(secs => ?)',
    [olderThanSeconds],
    'run',
  );
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}
