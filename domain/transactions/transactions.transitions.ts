/**
 * The one place a transaction changes state. Workflow activities and the inbound-webhook endpoint call
 * moveTransaction inside a database transaction: it locks the row, checks the move is allowed from the current
 * state (a move that is no longer possible — a retried activity, a duplicate webhook — is a silent no-op), mirrors
 * the order's status with a history entry, and records the transaction.<status> event in the same transaction.
 */
import { moveOrderStatus } from '../../db/repositories/orders.repository';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TransactionSchema, type OrderStatus, type Transaction, type TransactionStatus } from '../../db/entities';
import { recordEvent } from '../events/events.outbox';
import { isEventType } from '../events/events.catalog';
import { presentTransactionHeader } from './transactions.presenter';

/** The order mirrors its transaction; states orders don't have map to their nearest order state. */
export const ORDER_STATUS_OF: Record<TransactionStatus, OrderStatus> = {
  pending: 'pending',
  pre_authorized: 'pre_authorized',
  authorized: 'authorized',
  failed: 'failed',
  canceled: 'canceled',
  voided: 'canceled',
  expired: 'canceled',
  charged_back: 'charged_back',
  refund_pending: 'refund_pending',
  capture_pending: 'pre_authorized',
  refunded: 'refunded',
  partially_refunded: 'partially_refunded',
};

export type TriggeredBy = 'api' | 'system' | 'psp_webhook';

export interface Move {
  to: TransactionStatus;
  /** The move applies only from these states; otherwise nothing happens (null is returned). */
  from: readonly TransactionStatus[];
  triggeredBy: TriggeredBy;
  /** Unique per logical move (e.g. `${workflowId}:final`): a retried write adds no second history entry. */
  key: string;
  patch?: Partial<
    Pick<
      Transaction,
      | 'amountAuthorized'
      | 'amountCaptured'
      | 'amountRefunded'
      | 'appliedRoutingRuleId'
      | 'connectorId'
      | 'providerReference'
      | 'paymentInstructions'
      | 'expiresAt'
      | 'routingProfileId'
    >
  >;
  /** Extra event to record (e.g. transaction.refund_created) besides transaction.<to>. */
  extraEvents?: string[];
}

/** The order follows its transaction (locked, one statement with its history entry). */
export async function mirrorOrder(
  em: EntityManager,
  orderId: string,
  to: OrderStatus,
  triggeredBy: TriggeredBy,
  key: string,
): Promise<void> {
  await moveOrderStatus(em, { orderId, to, triggeredBy, key });
}

/** Applies `move` to the locked transaction; null when the move no longer applies (already done or impossible). */
export async function moveTransaction(
  em: EntityManager,
  transactionId: string,
  move: Move,
): Promise<Transaction | null> {
  const tx = await em.findOne(TransactionSchema, { id: transactionId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!tx || !move.from.includes(tx.status)) return null;
  Object.assign(tx, move.patch ?? {});
  tx.status = move.to;
  tx.updatedAt = new Date();
  await em.flush();
  if (tx.orderId) await mirrorOrder(em, tx.orderId, ORDER_STATUS_OF[move.to], move.triggeredBy, move.key);
  const object = presentTransactionHeader(tx);
  for (const type of [...(move.extraEvents ?? []), `transaction.${move.to}`]) {
    if (isEventType(type))
      await recordEvent(em, { organizationId: tx.organizationId, merchantId: tx.merchantId, type, object });
  }
  return tx;
}

/**
 * Clears the operation that owned a pending capture/void (transactions.pending_operation_id), in the same database
 * transaction as the move it guarded, and before that move loads the row (so the flushed entity holds no owner).
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
