/**
 * transactions: the raw statements on a transaction's row. Its moves go through the entity under the row lock
 * (domain/transactions/transactions.transitions.ts); here are the API's reads of a transaction to present (polled by
 * integrators, so without the ORM: db/reads.ts plain rows, never managed, never flushed), the conditional
 * single-column writes of a capture's or void's operation (its owner, the provider's notified verdict) and the reads
 * that join the transaction to what it charged (its order, card token and checkout).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BigIntType, type EntityMetadata } from '@mikro-orm/core';
import { TransactionAttemptSchema, TransactionSchema, type Transaction, type TransactionAttempt } from '../entities';
import { findOneRow, findRows, readNamed } from '../reads';

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
 * A row keyed by column names as its entity's properties (plain, never managed): int8 money as numbers and
 * timestamps as Dates, as the ORM hydrates them (pg returns int8 and, through MikroORM, timestamps as text; inside
 * json_agg they are a number and an ISO string).
 */
function plainOf<T>(meta: EntityMetadata, row: Record<string, unknown>): T {
  const plain: Record<string, unknown> = {};
  for (const prop of meta.props) {
    const value = row[prop.fieldNames[0]] ?? null;
    if (value === null) plain[prop.name] = null;
    else if (prop.customType instanceof BigIntType) plain[prop.name] = Number(value);
    else if (prop.columnTypes[0]?.startsWith('timestamptz')) plain[prop.name] = new Date(value as string);
    else plain[prop.name] = value;
  }
  return plain as T;
}

/**
 * The merchant's transaction with its attempts in attempt order, as committed now, in one round trip (the answer to
 * a charge, a capture or void, and every GET of a transaction), or null.
 */
export async function transactionWithAttemptsToPresent(
  em: EntityManager,
  merchantId: string,
  transactionId: string,
): Promise<{ transaction: Transaction; attempts: TransactionAttempt[] } | null> {
  const [row] = await readNamed<Record<string, unknown> & { attempts: Array<Record<string, unknown>> }>(
    em,
    'transaction_with_attempts',
    `select t.*, coalesce((select json_agg(a order by a.attempt_number) from transaction_attempts a
                            where a.transaction_id = t.id), '[]'::json) as attempts
       from transactions t where t.id = ? and t.merchant_id = ?`,
    [transactionId, merchantId],
  );
  if (!row) return null;
  const metadata = em.getMetadata();
  const attemptMeta = metadata.get(TransactionAttemptSchema.meta.className);
  return {
    transaction: plainOf(metadata.get(TransactionSchema.meta.className), row),
    attempts: row.attempts.map((attempt) => plainOf<TransactionAttempt>(attemptMeta, attempt)),
  };
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
