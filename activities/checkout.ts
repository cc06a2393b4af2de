/** Checkout activities: the write half of the durable expiry in workflows/checkout-expiry.ts. */
import type { Orm } from '../db/orm';
import { expireIfDue, expiryOf } from '../db/repositories/checkout-sessions.repository';

export interface CheckoutDeps {
  orm: Orm;
}

export interface ExpireResult {
  /** expired: written now; not_due: expires_at is later than asOf; unchanged: paid, abandoned, already expired
   * or no longer expiring; missing: no such session (e.g. its creating transaction rolled back). */
  outcome: 'expired' | 'not_due' | 'unchanged' | 'missing';
  /** The stored expires_at (ISO 8601) when not_due. */
  expiresAt?: string;
}

export function createCheckoutActivities({ orm }: CheckoutDeps) {
  return {
    /**
     * Idempotent: expires the session only while it still waits for its buyer (initiated or
     * customer_identified) and its stored expires_at is at or before asOf. asOf is the workflow's clock, which
     * is the wall clock in production and the skipped-ahead clock in time-skipping tests.
     */
    async expireCheckoutSession(sessionId: string, asOf: string = new Date().toISOString()): Promise<ExpireResult> {
      const em = orm.em.fork();
      if (await expireIfDue(em, sessionId, asOf)) return { outcome: 'expired' };
      const row = await expiryOf(em, sessionId);
      if (!row) return { outcome: 'missing' };
      const open = row.status === 'initiated' || row.status === 'customer_identified';
      if (open && row.expiresAt) return { outcome: 'not_due', expiresAt: row.expiresAt.toISOString() };
      return { outcome: 'unchanged' };
    },
  };
}
