/**
 * Capture, void and refunds of a transaction. Each runs transactionOperationWorkflow and waits for it: the
 * workflow's first activity decides (under the row lock) whether the move is allowed, so the 422 codes come from
 * the same place as the state changes; this request only checks the transaction is the merchant's.
 */
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { RefundSchema, type Transaction } from '../../../db/entities';
import { SEARCH_ATTRIBUTE_KEYS as SA, TASK_QUEUES } from '../../../workflows/definitions';
import {
  operationWorkflowId,
  transactionOperationWorkflow,
  type OperationResult,
} from '../../../workflows/transaction-operation';
import { OPERATION_IN_PROGRESS, type OperationInput } from '../../../workflows/lib/charge-types';
import { defineRoute } from '../../http/define-route';
import { ApiError, errors } from '../../http/errors';
import { pagination } from '../../http/pagination';
import { idFromSeed, newId } from '../../lib/ids';
import { WorkflowWaitTimeout, withWorkflowDeadline } from '../../lib/workflow-deadline';
import { PaginationQuery, MerchantIdField, StrictObject } from '../../http/schema';
import {
  CaptureBody,
  CreateRefundBody,
  MerchantQuery,
  RefundParams,
  RefundSchemaOut,
  TransactionParams,
  TransactionSchemaOut,
  VoidBody,
} from './transactions.schema';
import { presentRefund } from './transactions.presenter';
import { getTransaction, transactionView } from './transactions.service';

/**
 * Runs the operation workflow, tagged with the merchant and the transaction's current status so operators find it.
 * With an Idempotency-Key the operation id derives from it, so a retry of a request whose answer was lost (502)
 * finds the same workflow — running or closed — and never captures or refunds twice.
 */
async function runOperation(client: Client, tx: Transaction, input: OperationInput, waitMs: number): Promise<void> {
  const workflowId = operationWorkflowId(input);
  let result: OperationResult;
  try {
    result = await withWorkflowDeadline(client, waitMs, () =>
      client.workflow
        .execute(transactionOperationWorkflow, {
          workflowId,
          taskQueue: TASK_QUEUES.payments,
          args: [input],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          staticSummary: `${input.kind[0].toUpperCase()}${input.kind.slice(1)} of ${tx.id}${input.amount === undefined ? '' : `: ${input.amount} ${tx.currency} (minor units)`}`,
          typedSearchAttributes: [
            { key: SA.MerchantId, value: tx.merchantId },
            { key: SA.TransactionStatus, value: tx.status },
          ],
        })
        .catch((error) => {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          return client.workflow.getHandle(workflowId).result();
        }),
    );
  } catch (error) {
    if (error instanceof WorkflowWaitTimeout) {
      // The operation keeps running: its result shows on the transaction (and refund) once it finishes.
      throw new ApiError(
        504,
        'external_service_error',
        'OPERATION_STILL_PROCESSING',
        `The ${input.kind} is still being processed; retry with the same Idempotency-Key or read the transaction later`,
        { transaction_id: tx.id, ...(input.refundId ? { refund_id: input.refundId } : {}) },
      );
    }
    throw new ApiError(
      502,
      'external_service_error',
      'OPERATION_UNAVAILABLE',
      `The ${input.kind} could not be completed right now`,
    );
  }
  if (!result.ok) {
    if (result.code === OPERATION_IN_PROGRESS) throw errors.conflict(result.code, result.message);
    throw errors.businessRule(result.code, result.message);
  }
}

/** Capture/void operation id: from the Idempotency-Key when one was sent (see runOperation), else random. */
const operationIdOf = (idempotencySeed: string | undefined) => idempotencySeed ?? randomUUID();

const tags = ['Transactions'];
const keys = ['merchant', 'organization'] as const;

export const transactionOperationRoutes = [
  defineRoute({
    method: 'post',
    path: '/transactions/:transactionId/capture',
    summary: 'Capture a pre-authorized transaction, fully (default) or partially',
    tags,
    auth: { keys, scopes: ['transactions:write'] },
    params: TransactionParams,
    body: CaptureBody,
    responses: { 200: TransactionSchemaOut },
    envelope: 'wrapped',
    idempotency: 'optional',
    waitsOnWorkflow: true,
    async handler({ em, merchantId, params, body, deps, idempotencySeed }) {
      const tx = await getTransaction(em, merchantId, params.transactionId);
      await runOperation(
        deps.temporal.client,
        tx,
        {
          kind: 'capture',
          operationId: operationIdOf(idempotencySeed),
          transactionId: tx.id,
          amount: body.amount,
        },
        deps.config.workflowWaitMs,
      );
      return { status: 200, data: await transactionView(em, await getTransaction(em, merchantId, tx.id)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/transactions/:transactionId/void',
    summary: 'Void a pre-authorized transaction (release the hold)',
    tags,
    auth: { keys, scopes: ['transactions:write'] },
    params: TransactionParams,
    body: VoidBody,
    responses: { 200: TransactionSchemaOut },
    envelope: 'wrapped',
    idempotency: 'optional',
    waitsOnWorkflow: true,
    async handler({ em, merchantId, params, deps, idempotencySeed }) {
      const tx = await getTransaction(em, merchantId, params.transactionId);
      await runOperation(
        deps.temporal.client,
        tx,
        { kind: 'void', operationId: operationIdOf(idempotencySeed), transactionId: tx.id },
        deps.config.workflowWaitMs,
      );
      return { status: 200, data: await transactionView(em, await getTransaction(em, merchantId, tx.id)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/transactions/:transactionId/refunds',
    summary:
      'Refund a captured transaction, fully (default: the refundable balance) or partially; several per transaction',
    tags,
    auth: { keys, scopes: ['transactions:write'] },
    params: TransactionParams,
    body: CreateRefundBody,
    responses: { 201: RefundSchemaOut, 200: RefundSchemaOut },
    envelope: 'wrapped',
    idempotency: 'optional',
    waitsOnWorkflow: true,
    async handler({ em, merchantId, params, body, deps, idempotencySeed }) {
      const tx = await getTransaction(em, merchantId, params.transactionId);
      const refundId = idempotencySeed ? idFromSeed('ref', idempotencySeed) : newId('ref');
      await runOperation(
        deps.temporal.client,
        tx,
        {
          kind: 'refund',
          operationId: refundId,
          transactionId: tx.id,
          refundId,
          amount: body.amount,
          reason: body.reason,
          metadata: body.metadata,
        },
        deps.config.workflowWaitMs,
      );
      const refund = await em.findOneOrFail(RefundSchema, { id: refundId }, { refresh: true });
      return { status: 201, data: presentRefund(refund) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/transactions/:transactionId/refunds',
    summary: "A transaction's refunds, newest first",
    tags,
    auth: { keys, scopes: ['transactions:read'] },
    params: TransactionParams,
    query: StrictObject({ ...PaginationQuery, merchant_id: MerchantIdField }),
    responses: { 200: Type.Array(RefundSchemaOut) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, params, query }) {
      const tx = await getTransaction(em, merchantId, params.transactionId);
      const [items, total] = await em.findAndCount(
        RefundSchema,
        { transactionId: tx.id },
        {
          orderBy: { createdAt: 'desc', id: 'desc' },
          limit: query.limit,
          offset: (query.page - 1) * query.limit,
        },
      );
      return { status: 200, data: items.map(presentRefund), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/transactions/:transactionId/refunds/:refundId',
    summary: 'Get a refund',
    tags,
    auth: { keys, scopes: ['transactions:read'] },
    params: RefundParams,
    query: MerchantQuery,
    responses: { 200: RefundSchemaOut },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      const refund = await em.findOne(RefundSchema, {
        id: params.refundId,
        transactionId: params.transactionId,
        merchantId,
      });
      if (!refund) throw errors.notFound('No such refund', 'REFUND_NOT_FOUND');
      return { status: 200, data: presentRefund(refund) };
    },
  }),
];
