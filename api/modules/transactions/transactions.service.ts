/**
 * Transactions: the read side (get, list, attempts, and the answer of a request whose workflow outlived its wait).
 * A charge is run by transactionWorkflow (started through api/temporal/); the handler then reads the read model the
 * workflow's activities committed.
 *
 * Why the workflow writes the rows, not this request: the request runs inside one database transaction (with
 * its idempotency row) until the response is stored; the activities write through their own connections and
 * could never see rows this transaction inserted before it commits. So the handler inserts nothing the workflow
 * needs — it validates, builds ids-only input and waits; openTransaction (the first activity) creates the order
 * and the transaction, and the handler reads them back once the workflow returns (READ COMMITTED sees them).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { TransactionAttemptSchema, TransactionSchema, type Transaction } from '../../../db/entities';
import { ApiError, errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import {
  attemptsToPresent,
  transactionToPresent,
  transactionWithAttemptsToPresent,
} from '../../../db/repositories/transactions.repository';
import { presentTransaction } from '../../../domain/transactions/transactions.presenter';

/**
 * A charge or an operation whose workflow outlived the request's wait (WORKFLOW_WAIT_MS): the work goes on, so
 * once it has been accepted (its rows exist) the request answers the resource as it stands, never a 5xx.
 */
export const isStillProcessing = (error: unknown, code: 'CHARGE_STILL_PROCESSING' | 'OPERATION_STILL_PROCESSING') =>
  error instanceof ApiError && error.code === code;

/**
 * The transaction as committed now (a plain row: the workflow's activities write it, this side only reads; polled
 * by integrators, so without the ORM — db/reads.ts).
 */
export async function getTransaction(em: EntityManager, merchantId: string, id: string): Promise<Transaction> {
  const tx = await transactionToPresent(em, merchantId, id);
  if (!tx) throw errors.notFound('No such transaction', 'TRANSACTION_NOT_FOUND');
  return tx;
}

/** The merchant's transaction with its timeline as committed now (one plain read), presented; 404 when none. */
export async function transactionView(em: EntityManager, merchantId: string, id: string) {
  const read = await transactionWithAttemptsToPresent(em, merchantId, id);
  if (!read) throw errors.notFound('No such transaction', 'TRANSACTION_NOT_FOUND');
  return presentTransaction(read.transaction, read.attempts);
}

export async function listAttempts(em: EntityManager, merchantId: string, id: string) {
  return attemptsToPresent(em, (await getTransaction(em, merchantId, id)).id);
}

export interface TransactionFilter extends PageRequest {
  status?: string[];
  customer_reference?: string;
  order_id?: string;
  customer_id?: string;
  payment_method?: string[];
  currency?: string;
  date_from?: string;
  date_to?: string;
  livemode?: boolean;
}

export async function listTransactions(em: EntityManager, merchantId: string, filter: TransactionFilter) {
  if (filter.date_from && filter.date_to && Date.parse(filter.date_from) > Date.parse(filter.date_to)) {
    throw errors.invalidValue('date_from', 'must not be after date_to');
  }
  const where: FilterQuery<Transaction> = { merchantId };
  if (filter.status) Object.assign(where, { status: { $in: filter.status } });
  if (filter.payment_method) Object.assign(where, { paymentMethod: { $in: filter.payment_method } });
  if (filter.order_id) Object.assign(where, { orderId: filter.order_id });
  if (filter.customer_id) Object.assign(where, { customerId: filter.customer_id });
  if (filter.currency) Object.assign(where, { currency: filter.currency.toUpperCase() });
  if (filter.livemode !== undefined) Object.assign(where, { livemode: filter.livemode });
  if (filter.customer_reference) {
    Object.assign(where, {
      $or: [{ customerId: filter.customer_reference }, { externalOrderId: filter.customer_reference }],
    });
  }
  const createdAt: Record<string, Date> = {};
  if (filter.date_from) createdAt.$gte = new Date(filter.date_from);
  if (filter.date_to) createdAt.$lte = new Date(filter.date_to);
  if (Object.keys(createdAt).length) Object.assign(where, { createdAt });
  const [items, total] = await em.findAndCount(TransactionSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  const attempts = items.length
    ? await em.find(
        TransactionAttemptSchema,
        { transactionId: { $in: items.map((t) => t.id) } },
        { orderBy: { attemptNumber: 'asc' } },
      )
    : [];
  return {
    items: items.map((tx) =>
      presentTransaction(
        tx,
        attempts.filter((a) => a.transactionId === tx.id),
      ),
    ),
    total,
  };
}
