/**
 * Transactions: running a charge (the API starts chargeWorkflow and waits for its result, then reads the read
 * model the workflow's activities committed) and the read side (get, list, attempts).
 *
 * Why the workflow writes the rows, not this request: the request holds no database transaction while it waits
 * on the workflow (a transaction held across that wait would pin a pooled connection), so the handler inserts
 * nothing — it validates, builds ids-only input and waits; openTransaction (the first activity) creates the order
 * and the transaction, and the handler reads them back once the workflow returns.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { TransactionAttemptSchema, TransactionSchema, type Transaction } from '../../../db/entities';
import { chargeWorkflow, chargeWorkflowId } from '../../../workflows/charge';
import type { ChargeInput } from '../../../workflows/lib/charge-types';
import { SEARCH_ATTRIBUTE_KEYS as SA, TASK_QUEUES } from '../../../workflows/definitions';
import { ApiError, errors } from '../../http/errors';
import { WorkflowWaitTimeout, withWorkflowDeadline } from '../../lib/workflow-deadline';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { presentTransaction } from './transactions.presenter';

/**
 * Starts the charge workflow and waits for its (first) outcome: authorized, pre_authorized, failed or pending.
 * The workflow id comes from the transaction id, which comes from the Idempotency-Key: a retry of a request whose
 * answer was lost finds the same workflow — running (USE_EXISTING) or closed (REJECT_DUPLICATE, then its result) —
 * and never starts a second charge.
 */
export async function runCharge(client: Client, input: ChargeInput, waitMs: number): Promise<void> {
  const workflowId = chargeWorkflowId(input.transactionId);
  try {
    await withWorkflowDeadline(client, waitMs, () =>
      client.workflow
        .execute(chargeWorkflow, {
          workflowId,
          taskQueue: TASK_QUEUES.payments,
          args: [input],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          staticSummary: chargeSummary(input),
          typedSearchAttributes: [
            { key: SA.OrganizationId, value: input.organizationId },
            { key: SA.MerchantId, value: input.merchantId },
            ...(input.customerId ? [{ key: SA.CustomerId, value: input.customerId }] : []),
            { key: SA.PaymentMethod, value: input.paymentMethod },
            { key: SA.TransactionStatus, value: 'pending' },
          ],
        })
        .catch((error) => {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          return client.workflow.getHandle(workflowId).result();
        }),
    );
  } catch (error) {
    throw chargeNotAnswered(error, input.transactionId);
  }
}

/** The one line the Temporal UI shows for the charge (amounts in minor units; never card or customer data). */
export const chargeSummary = (input: ChargeInput) =>
  `${input.chargeType === 'setup_verification' ? 'Card verification' : 'Charge'} ${input.transactionId}: ${input.amount} ${input.currency} ` +
  `(minor units) by ${input.paymentMethod}${input.capture ? '' : ', authorize only'}`;

/** A retried charge whose transaction already exists: waits for its workflow rather than charging again. */
export async function awaitCharge(client: Client, transactionId: string, waitMs: number): Promise<void> {
  try {
    await withWorkflowDeadline(client, waitMs, () =>
      client.workflow.getHandle(chargeWorkflowId(transactionId)).result(),
    );
  } catch (error) {
    throw chargeNotAnswered(error, transactionId);
  }
}

// The workflow keeps running (or is retried by Temporal); the client retries with the same key or GETs the id.
const chargeNotAnswered = (error: unknown, transactionId: string) =>
  error instanceof WorkflowWaitTimeout
    ? new ApiError(
        504,
        'external_service_error',
        'CHARGE_STILL_PROCESSING',
        'The charge is still being processed; retry with the same Idempotency-Key or read the transaction later',
        { transaction_id: transactionId },
      )
    : new ApiError(502, 'external_service_error', 'CHARGE_UNAVAILABLE', 'The charge could not be completed right now', {
        transaction_id: transactionId,
      });

export async function getTransaction(em: EntityManager, merchantId: string, id: string): Promise<Transaction> {
  const tx = await em.findOne(TransactionSchema, { id, merchantId }, { refresh: true });
  if (!tx) throw errors.notFound('No such transaction', 'TRANSACTION_NOT_FOUND');
  return tx;
}

export async function transactionView(em: EntityManager, tx: Transaction) {
  const attempts = await em.find(
    TransactionAttemptSchema,
    { transactionId: tx.id },
    { orderBy: { attemptNumber: 'asc' }, refresh: true },
  );
  return presentTransaction(tx, attempts);
}

export async function listAttempts(em: EntityManager, merchantId: string, id: string) {
  const tx = await getTransaction(em, merchantId, id);
  return em.find(TransactionAttemptSchema, { transactionId: tx.id }, { orderBy: { attemptNumber: 'asc' } });
}

export interface TransactionFilter extends PageRequest {
  status?: string[];
  customer_reference?: string;
  order_id?: string;
  payment_method?: string[];
  currency?: string;
  date_from?: string;
  date_to?: string;
}

export async function listTransactions(em: EntityManager, merchantId: string, filter: TransactionFilter) {
  if (filter.date_from && filter.date_to && Date.parse(filter.date_from) > Date.parse(filter.date_to)) {
    throw errors.invalidValue('date_from', 'must not be after date_to');
  }
  const where: FilterQuery<Transaction> = { merchantId };
  if (filter.status) Object.assign(where, { status: { $in: filter.status } });
  if (filter.payment_method) Object.assign(where, { paymentMethod: { $in: filter.payment_method } });
  if (filter.order_id) Object.assign(where, { orderId: filter.order_id });
  if (filter.currency) Object.assign(where, { currency: filter.currency.toUpperCase() });
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
