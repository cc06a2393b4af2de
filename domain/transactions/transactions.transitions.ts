/**
 * The one place a transaction changes state. Workflow activities and the inbound-webhook endpoint call
 * applyTransactionMove inside a database transaction: it locks the row, finds the move's rule in the state table
 * (transactions.state-table.ts; a move that no longer applies — a retried activity, a duplicate webhook — is a
 * silent no-op), mirrors the order's status with a history entry, and records the rule's events in the same
 * transaction.
 */
import { moveOrderStatus } from '../../db/repositories/orders.repository';
import { countPendingRefunds } from '../../db/repositories/refunds.repository';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TransactionSchema, type OrderStatus, type Transaction, type TransactionStatus } from '../../db/entities';
import { recordEvent } from '../events/events.outbox';
import { resolveMove, ruleFor, type TransactionEvent } from './transactions.state-table';
import { presentTransactionHeader } from './transactions.presenter';
import { countTransactionMove } from '../platform/metrics';

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
  /** What happened; TRANSACTION_MOVES says from which states it applies, where it leads and what it records. */
  event: TransactionEvent;
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
      | 'failureCode'
      | 'failureMessage'
      | 'providerCode'
    >
  >;
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

/**
 * Applies `move` to the locked transaction through its rule in TRANSACTION_MOVES; null when no rule applies from
 * the current state (the move was already made, or is not allowed), and then nothing is written.
 */
export async function applyTransactionMove(
  em: EntityManager,
  transactionId: string,
  move: Move,
): Promise<Transaction | null> {
  const tx = await em.findOne(TransactionSchema, { id: transactionId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const rule = tx ? ruleFor(tx.status, move.event) : null;
  if (!tx || !rule) return null;
  Object.assign(tx, move.patch ?? {});
  const { to, events } = resolveMove(rule, {
    amountCaptured: tx.amountCaptured,
    amountRefunded: tx.amountRefunded,
    pendingRefunds: rule.to === 'by_refunds' ? await countPendingRefunds(em, tx.id) : 0,
  });
  // A state the refunds say that is the current one (another refund still pending) is no move at all.
  if (rule.to === 'by_refunds' && to === tx.status) {
    await em.flush();
    return null;
  }
  tx.status = to;
  tx.updatedAt = new Date();
  await em.flush();
  countTransactionMove(to, tx.paymentMethod);
  if (tx.orderId) await mirrorOrder(em, tx.orderId, ORDER_STATUS_OF[to], move.triggeredBy, move.key);
  const object = presentTransactionHeader(tx);
  for (const type of events)
    await recordEvent(em, {
      organizationId: tx.organizationId,
      merchantId: tx.merchantId,
      livemode: tx.livemode,
      type,
      object,
    });
  return tx;
}
