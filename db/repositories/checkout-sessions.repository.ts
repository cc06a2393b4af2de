/**
 * checkout_sessions status moves made around a payment: a payment claiming the checkout (payment_pending), succeeding
 * (completed) or taking no money (payable again), and the durable expiry. The API creates and edits sessions through their entity
 * (api/modules/checkout-sessions/); these are the conditional single-statement moves that must not race it.
 *
 * A checkout session takes one payment: the payment that moved it to payment_pending is its paying_transaction_id,
 * and only that payment completes it or gives it back.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

const WAITING_FOR_BUYER = `status in ('initiated', 'customer_identified')`;

/**
 * Claims the checkout for the payment `transactionId` before any provider sees it: moves it to payment_pending if
 * it waits for its buyer (and has not expired), or finds it already claimed by this same payment (a retry). False:
 * another payment holds it, or it can no longer be paid. One statement, so two payments cannot both claim it.
 */
export async function claimForPayment(em: EntityManager, sessionId: string, transactionId: string): Promise<boolean> {
  const claimed = await em.execute<{ id: string }[]>(
    `update checkout_sessions set status = 'payment_pending', paying_transaction_id = ?, updated_at = now()
      where id = ?
        and ((${WAITING_FOR_BUYER} and (expires_at is null or expires_at > now()))
             or (status = 'payment_pending' and paying_transaction_id = ?))
      returning id`,
    [transactionId, sessionId, transactionId],
  );
  return claimed.length > 0;
}

/** The payment holding the checkout (null when none does, or the checkout does not exist). */
export async function payingTransactionOf(em: EntityManager, sessionId: string): Promise<string | null> {
  const [row] = await em.execute<{ paying_transaction_id: string | null }[]>(
    'select paying_transaction_id from checkout_sessions where id = ?',
    [sessionId],
  );
  return row?.paying_transaction_id ?? null;
}

/**
 * Gives the checkout back from a payment whose charge was never opened (its workflow could not be started): only
 * while no transaction `transactionId` exists. The row is locked first and the transaction looked for afterwards,
 * so a charge opening at that moment (it claims the row in its own database transaction) is seen, never missed.
 */
export async function releaseUnopenedClaim(em: EntityManager, sessionId: string, transactionId: string): Promise<void> {
  await em.transactional(async (tx) => {
    const [held] = await tx.execute<{ id: string }[]>(
      `select id from checkout_sessions
        where id = ? and status = 'payment_pending' and paying_transaction_id = ? for update`,
      [sessionId, transactionId],
    );
    if (!held) return;
    const [opened] = await tx.execute<{ id: string }[]>('select id from transactions where id = ?', [transactionId]);
    if (opened) return;
    await tx.execute(
      `update checkout_sessions
          set status = case when customer_id is null then 'initiated' else 'customer_identified' end,
              paying_transaction_id = null, updated_at = now()
        where id = ?`,
      [sessionId],
    );
  });
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
 * waiting for its buyer — when that payment is the one holding it. (A checkout claimed before payments were named
 * on it is given back unless another of its payments is still under way or went through.)
 */
export async function reopenAfterUnpaidCharge(
  em: EntityManager,
  sessionId: string,
  transactionId: string,
): Promise<void> {
  await em.execute(
    `update checkout_sessions c
        set status = case when c.customer_id is null then 'initiated' else 'customer_identified' end,
            paying_transaction_id = null, updated_at = now()
      where c.id = ? and c.status = 'payment_pending'
        and (c.paying_transaction_id = ?
             or (c.paying_transaction_id is null
                 and not exists (select 1 from transactions t where t.checkout_session_id = c.id and t.id <> ?
                                    and t.status not in ('failed', 'expired', 'canceled'))))`,
    [sessionId, transactionId, transactionId],
  );
}

/**
 * Setup mode: the card verification that claimed the checkout (claimForPayment with the verification's workflow id
 * as its paying id) saved `instrumentId`: the checkout completes naming it. Only the claiming verification does.
 */
export async function completeSetup(
  em: EntityManager,
  sessionId: string,
  verificationId: string,
  instrumentId: string,
): Promise<void> {
  await em.execute(
    `update checkout_sessions
        set status = 'completed', completed_at = now(), payment_instrument_id = ?, updated_at = now()
      where id = ? and status = 'payment_pending' and paying_transaction_id = ?`,
    [instrumentId, sessionId, verificationId],
  );
}

/** Setup mode: a verification that saved no card gives the checkout back to its buyer (another card may be tried). */
export async function releaseSetupClaim(em: EntityManager, sessionId: string, verificationId: string): Promise<void> {
  await em.execute(
    `update checkout_sessions
        set status = case when customer_id is null then 'initiated' else 'customer_identified' end,
            paying_transaction_id = null, updated_at = now()
      where id = ? and status = 'payment_pending' and paying_transaction_id = ?`,
    [sessionId, verificationId],
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

/** The session's status and stored expiry (null: no such session, e.g. its creating transaction rolled back). */
export async function expiryOf(
  em: EntityManager,
  sessionId: string,
): Promise<{ status: string; expiresAt: Date | null } | null> {
  const [row] = await em.execute<{ status: string; expires_at: Date | null }[]>(
    'select status, expires_at from checkout_sessions where id = ?',
    [sessionId],
  );
  return row ? { status: row.status, expiresAt: row.expires_at === null ? null : new Date(row.expires_at) } : null;
}
