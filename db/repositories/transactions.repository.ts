/**
 * transactions: the raw statements on a transaction's row. Its moves go through the entity under the row lock
 * (domain/transactions/transactions.transitions.ts); here are the API's reads of a transaction to present (polled by
 * integrators, so without the ORM: db/reads.ts plain rows, never managed, never flushed), the conditional
 * single-column writes of a capture's or void's operation (its owner, the provider's notified verdict) and the reads
 * that join the transaction to what it charged (its order, card token and checkout).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { TransactionAttemptSchema, TransactionSchema, type Transaction, type TransactionAttempt } from '../entities';
import { findOneRow, findRows } from '../reads';

/** The merchant's transaction as committed now, or null. */
export async function transactionToPresent(
  em: EntityManager,
  merchantId: string,
  transactionId: string,
): Promise<Transaction | null> {
  return findOneRow(em, TransactionSchema, { id: transactionId, merchantId });
}

/** The attempts of a transaction the caller read within its merchant, in attempt order. */
export async function attemptsToPresent(em: EntityManager, transactionId: string): Promise<TransactionAttempt[]> {
  return findRows(em, TransactionAttemptSchema, { transactionId }, 'attemptNumber');
}

/**
 * Clears the operation that owned a pending capture/void (transactions.pending_operation_id), only while that
 * operation owns it.
 */
export async function releaseOperationOwner(
  em: EntityManager,
  transactionId: string,
  operationId: string,
): Promise<void> {
  await em.execute('update transactions set pending_operation_id = null where id = ? and pending_operation_id = ?', [
    transactionId,
    operationId,
  ]);
}

/** The provider's notified verdict on the transaction's pending capture or void, kept for that operation. */
export async function recordOperationVerdict(
  em: EntityManager,
  transactionId: string,
  operationId: string,
  verdict: 'succeeded' | 'failed',
): Promise<void> {
  await em.execute(`update transactions set operation_verdict = ?, operation_verdict_for = ? where id = ?`, [
    verdict,
    operationId,
    transactionId,
  ]);
}

/** The provider's notified verdict on this operation (recordOperationVerdict), or null when none arrived. */
export async function operationVerdictOf(
  em: EntityManager,
  transactionId: string,
  operationId: string,
): Promise<'succeeded' | 'failed' | null> {
  const [row] = await em.execute<Array<{ operation_verdict: 'succeeded' | 'failed' }>>(
    `select operation_verdict from transactions where id = ? and operation_verdict_for = ?`,
    [transactionId, operationId],
  );
  return row?.operation_verdict ?? null;
}

/**
 * Why a charge was refused before any provider: its single-use card token was used by another transaction, or its
 * checkout session was being paid by another (or could no longer be paid). Undefined when there is no such
 * transaction.
 */
export async function refusalBeforeProvider(
  em: EntityManager,
  transactionId: string,
): Promise<{ token: boolean | null; checkout: boolean | null } | undefined> {
  const [refused] = await em.execute<Array<{ token: boolean | null; checkout: boolean | null }>>(
    `select k.used_by is not null and k.used_by <> t.id as token,
            c.paying_transaction_id <> t.id or c.status <> 'payment_pending' as checkout
       from transactions t
       left join card_tokens k on k.id = t.card_token_id
       left join checkout_sessions c on c.id = t.checkout_session_id
      where t.id = ?`,
    [transactionId],
  );
  return refused;
}

/** The transaction's subscription and its order's recurrence ('initial' for a recurring offer's first charge). */
export async function readRecurrence(
  em: EntityManager,
  transactionId: string,
): Promise<{ subscription_id: string | null; recurrence: string | null } | undefined> {
  const [row] = await em.execute<Array<{ subscription_id: string | null; recurrence: string | null }>>(
    `select t.subscription_id, o.recurrence from transactions t left join orders o on o.id = t.order_id
        where t.id = ?`,
    [transactionId],
  );
  return row;
}
