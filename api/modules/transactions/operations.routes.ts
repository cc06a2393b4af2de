/**
 * Capture, void and refunds of a transaction. Each runs transactionOperationWorkflow and waits for it: the
 * workflow's first activity decides (under the row lock) whether the move is allowed, so the 422 codes come from
 * the same place as the state changes; this request only checks the transaction is the merchant's.
 */
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Client } from '@temporalio/client';
import { RefundSchema, type Transaction } from '../../../db/entities';
import { runOperation as startOperation } from '../../temporal/transactions';
import { OPERATION_IN_PROGRESS, type OperationInput } from '../../../workflows/lib/transaction-types';
import { defineRoute } from '../../http/define-route';
import { errors } from '../../../domain/platform/errors';
import { pagination } from '../../http/pagination';
import { idFromSeed, newId } from '../../../domain/platform/ids';
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
import { presentRefund } from '../../../domain/transactions/transactions.presenter';
import { getTransaction, isStillProcessing, transactionView } from './transactions.service';
import { recordOperationActor } from '../../../db/repositories/payment-operation-actors.repository';
import { callerSnapshot } from './operation-actors.service';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs the operation workflow (api/temporal/) and turns a refusal into its 422. 'accepted' when the wait deadline
 * passed after the workflow reserved the move (`accepted` finds its capture_pending owner or its pending refund):
 * the work goes on and the request answers the resource as it stands. A deadline before that keeps the 504.
 */
async function runOperation(
  client: Client,
  tx: Transaction,
  input: OperationInput,
  waitMs: number,
  accepted: () => Promise<boolean>,
): Promise<'done' | 'accepted'> {
  const target = {
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    customerId: tx.customerId,
    status: tx.status,
    currency: tx.currency,
  };
  let result: Awaited<ReturnType<typeof startOperation>>;
  try {
    result = await startOperation(client, target, input, waitMs);
  } catch (error) {
    if (isStillProcessing(error, 'OPERATION_STILL_PROCESSING') && (await accepted())) return 'accepted';
    throw error;
  }
  if (!result.ok) {
    if (result.code === OPERATION_IN_PROGRESS) throw errors.conflict(result.code, result.message);
    throw errors.businessRule(result.code, result.message);
  }
  return 'done';
}

/** The capture or void `operationId` still owns the transaction's pending move (begun, not finished). */
const ownsPendingMove = (em: EntityManager, merchantId: string, id: string, operationId: string) => async () =>
  (await getTransaction(em, merchantId, id)).pendingOperationId === operationId;

/** Capture/void operation id: from the Idempotency-Key when one was sent (see runOperation), else random. */
const operationIdOf = (idempotencySeed: string | undefined) => idempotencySeed ?? randomUUID();

const tags = ['Transactions'];
const keys = ['merchant', 'organization'] as const;

export const transactionOperationRoutes = [
  defineRoute({
    method: 'post',
    path: '/transactions/:transactionId/capture',
    summary: 'Capture a pre-authorized transaction, fully (default) or partially',
    description:
      'Takes the money a pre-authorization (capture false) holds: the whole authorized amount, or less. Answers 200 with the transaction once the provider confirmed, or 202 while the capture is still in progress (status capture_pending; read the transaction again). A transaction that is not pre_authorized gets 422 TRANSACTION_ALREADY_VOIDED (voided), TRANSACTION_ALREADY_CAPTURED (its money was captured) or INVALID_STATE_TRANSITION (any other status); 422 CAPTURE_EXCEEDS_AUTHORIZED when the amount exceeds what was authorized; 409 OPERATION_IN_PROGRESS while another capture or void of it runs; 422 CONNECTOR_DELETED when the connector that made the charge was deleted.',
    example: { amount: 4990 },
    tags,
    auth: { keys, scopes: ['transactions:write'] },
    params: TransactionParams,
    body: CaptureBody,
    // 202: the capture was accepted and is still in progress (the transaction is capture_pending).
    responses: { 200: TransactionSchemaOut, 202: TransactionSchemaOut },
    envelope: 'wrapped',
    // 422 business_rule_error: the transaction is not capturable.
    errors: [422],
    idempotency: 'optional',
    waitsOnWorkflow: true,
    async handler(input) {
      const { em, merchantId, params, body, deps, idempotencySeed } = input;
      const tx = await getTransaction(em, merchantId, params.transactionId);
      const actor = await callerSnapshot(em, input);
      const operationId = operationIdOf(idempotencySeed);
      const ran = await runOperation(
        deps.temporal.client,
        tx,
        { kind: 'capture', operationId, transactionId: tx.id, amount: body.amount },
        deps.config.workflowWaitMs,
        ownsPendingMove(em, merchantId, tx.id, operationId),
      );
      await recordOperationActor(em, { operationId, merchantId, transactionId: tx.id, kind: 'capture', actor });
      const data = await transactionView(em, merchantId, tx.id);
      return { status: ran === 'accepted' ? 202 : 200, data };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/transactions/:transactionId/void',
    summary: 'Void a pre-authorized transaction (release the hold)',
    description:
      'Releases the money a pre-authorization (capture false) holds. Answers 200 with the transaction once the provider confirmed, or 202 while the void is still in progress (the transaction stays pre_authorized; read it again). A transaction that is not pre_authorized gets 422 TRANSACTION_ALREADY_VOIDED (voided), TRANSACTION_ALREADY_CAPTURED (its money was captured) or INVALID_STATE_TRANSITION (any other status); 409 OPERATION_IN_PROGRESS while another capture or void of it runs; 422 CONNECTOR_DELETED when the connector that made the charge was deleted.',
    tags,
    auth: { keys, scopes: ['transactions:write'] },
    params: TransactionParams,
    body: VoidBody,
    // 202: the void was accepted and is still in progress (the transaction stays pre_authorized until it settles).
    responses: { 200: TransactionSchemaOut, 202: TransactionSchemaOut },
    envelope: 'wrapped',
    // 422 business_rule_error: the transaction is not voidable.
    errors: [422],
    idempotency: 'optional',
    waitsOnWorkflow: true,
    async handler(input) {
      const { em, merchantId, params, deps, idempotencySeed } = input;
      const tx = await getTransaction(em, merchantId, params.transactionId);
      const actor = await callerSnapshot(em, input);
      const operationId = operationIdOf(idempotencySeed);
      const ran = await runOperation(
        deps.temporal.client,
        tx,
        { kind: 'void', operationId, transactionId: tx.id },
        deps.config.workflowWaitMs,
        ownsPendingMove(em, merchantId, tx.id, operationId),
      );
      await recordOperationActor(em, { operationId, merchantId, transactionId: tx.id, kind: 'void', actor });
      const data = await transactionView(em, merchantId, tx.id);
      return { status: ran === 'accepted' ? 202 : 200, data };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/transactions/:transactionId/refunds',
    summary:
      'Refund a captured transaction, fully (default: the refundable balance) or partially; several per transaction',
    description:
      'Returns money of a captured transaction to the buyer. Several partial refunds may follow each other up to the captured amount. Answers 201 with the refund: succeeded, pending (the provider settles it later; transaction.refunded or transaction.refund_failed follows) or failed with its error_code. A transaction that is not authorized, partially_refunded or refund_pending gets 422 TRANSACTION_ALREADY_REFUNDED (refunded) or INVALID_STATE_TRANSITION (any other status); 422 TRANSACTION_ALREADY_REFUNDED also when nothing is left to refund (pending refunds count) and REFUND_EXCEEDS_BALANCE when the amount exceeds the refundable balance; 422 CONNECTOR_DELETED when the connector that made the charge was deleted (refund at the provider).',
    example: { amount: 1990, reason: 'Item returned', metadata: { rma: 'RMA-7781' } },
    responseExample: {
      id: 'ref_5Jk8Lp2Qr7Sw',
      transaction_id: 'tx_7Hq2Lm9Xc4Vb1Nz8',
      merchant_id: 'mrc_2Wd8HnQe4Lz1',
      amount: 1990,
      currency: 'BRL',
      status: 'succeeded',
      reason: 'Item returned',
      error_code: null,
      metadata: { rma: 'RMA-7781' },
      created_at: '2026-11-26T09:41:03.004Z',
      updated_at: '2026-11-26T09:41:03.512Z',
    },
    tags,
    auth: { keys, scopes: ['transactions:write'] },
    params: TransactionParams,
    body: CreateRefundBody,
    responses: { 201: RefundSchemaOut, 200: RefundSchemaOut },
    envelope: 'wrapped',
    // 422 business_rule_error: the transaction is not refundable for this amount.
    errors: [422],
    idempotency: 'optional',
    waitsOnWorkflow: true,
    async handler(input) {
      const { em, merchantId, params, body, deps, idempotencySeed } = input;
      const tx = await getTransaction(em, merchantId, params.transactionId);
      const actor = await callerSnapshot(em, input);
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
        // Recorded (pending) by the workflow's first step: the refund exists and is answered as it stands.
        async () => (await em.findOne(RefundSchema, { id: refundId }, { refresh: true })) !== null,
      );
      await recordOperationActor(em, {
        operationId: refundId,
        merchantId,
        transactionId: tx.id,
        kind: 'refund',
        actor,
      });
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
