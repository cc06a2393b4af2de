/**
 * Deletes rows whose purpose has lapsed: expired idempotency keys and finished rate-limit windows; and wipes the
 * sealed PAN, name and CVC of expired card tokens.
 */
import type { Orm } from '../db/orm';
import { sweepExpiredTokens } from '../api/modules/tokens/tokens.service';
import { DECLINE_WINDOW_SECONDS } from '../api/http/browser-limits';

export interface HousekeepingDeps {
  orm: Orm;
  /** Rate-limit windows older than two windows (of the longest kind, the decline throttle's) can no longer be read. */
  rateLimitWindowSeconds: number;
}

async function deleteRows(orm: Orm, sql: string, params: unknown[]): Promise<number> {
  const result = await orm.em.fork().execute(sql, params, 'run');
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}

export function createHousekeepingActivities({ orm, rateLimitWindowSeconds }: HousekeepingDeps) {
  return {
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      return deleteRows(orm, 'delete from idempotency_keys where expires_at <= now()', []);
    },
    /** Card tokens live 15 minutes; their sealed card data must not wait for the next mint to be wiped. */
    async wipeExpiredCardTokens(): Promise<number> {
      const wiped = await sweepExpiredTokens(orm.em.fork(), new Date());
      return wiped.tokens + wiped.cvcs;
    },
    async purgeRateLimitWindows(): Promise<number> {
      return deleteRows(orm, `delete from rate_limit_counters where window_start < now() - make_interval(secs => ?)`, [
        Math.max(rateLimitWindowSeconds, DECLINE_WINDOW_SECONDS) * 2,
      ]);
    },
  };
}
