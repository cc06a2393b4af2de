/**
 * transactions: the API's reads of a transaction to present. Polled by integrators, so without the ORM
 * (db/reads.ts): plain rows, never managed, never flushed. The writes are the transaction workflow's
 * (domain/transactions/).
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
