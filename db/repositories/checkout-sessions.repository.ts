/**
 * checkout_sessions status moves made by the workers: a charge opening (payment_pending), succeeding
 * (completed) or taking no money (payable again), and the durable expiry. The API creates and edits sessions through their entity
 * (api/modules/checkout-sessions/); these are the conditional single-statement moves that must not race it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

const WAITING_FOR_BUYER = `status in ('initiated', 'customer_identified')`;

export async function markPaymentPending(em: EntityManager, sessionId: string): Promise<void> {
  await em.execute(
    `update checkout_sessions set status = 'payment_pending', updated_at = now() where id = ? and ${WAITING_FOR_BUYER}`,
    [sessionId],
  );
}

export async function markCompleted(em: EntityManager, sessionId: string): Promise<void> {
  await em.execute(
    `update checkout_sessions set status = 'completed', completed_at = now(), updated_at = now()
     where id = ? and status <> 'completed'`,
    [sessionId],
  );
}

/**
 * A payment that took no money leaves its checkout payable again (the buyer may try another card) — back to
 * waiting for its buyer — unless another payment of the checkout (not `transactionId`) is still under way or went
 * through.
 */
export async function reopenAfterUnpaidCharge(
  em: EntityManager,
  sessionId: string,
  transactionId: string,
): Promise<void> {
  await em.execute(
    `update checkout_sessions c
        set status = case when c.customer_id is null then 'initiated' else 'customer_identified' end,
            updated_at = now()
      where c.id = ? and c.status = 'payment_pending'
        and not exists (select 1 from transactions t where t.checkout_session_id = c.id and t.id <> ?
                           and t.status not in ('failed', 'expired', 'canceled'))`,
    [sessionId, transactionId],
  );
}

/** Expires the session if it still waits for its buyer and its expires_at is at or before `asOf`; true if it did. */
export async function expireIfDue(em: EntityManager, sessionId: string, asOf: string): Promise<boolean> {
  const updated = await em.execute<{ id: string }[]>(
    `update checkout_sessions set status = 'expired', updated_at = now()
      where id = ? and ${WAITING_FOR_BUYER} and expires_at is not null and expires_at <= ?
      returning id`,
    [sessionId, asOf],
  );
  return updated.length > 0;
}
