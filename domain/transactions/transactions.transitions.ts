/**
 * The one place a transaction changes state. Workflow activities and the inbound-webhook endpoint call
 * applyTransactionMove inside a database transaction: it locks the row, finds the move's rule in the state table
 * (transactions.state-table.ts; a move that no longer applies — a retried activity, a duplicate webhook — is a
 * silent no-op), mirrors the order's status with a history entry, and records the rule's events in the same
 * transaction. A charge that ends without money carries its reason with the move (failureReasonOf, below).
 */
import { moveOrderStatus } from '../../db/repositories/orders.repository';
import { countPendingRefunds } from '../../db/repositories/refunds.repository';
import { lastAttemptOutcome } from '../../db/repositories/transaction-attempt-reads.repository';
import { refusalBeforeProvider } from '../../db/repositories/transactions.repository';
import { providerCodeOf } from '../../workflows/lib/failure-codes';
import { attemptFailureCode } from '../connectors/failure-codes';
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

// ── Why a charge ended without money ─────────────────────────────────────────────────────────────────────────

/**
 * Why a charge ended without money (failed, expired, canceled): written on the transaction with the move, so the
 * API, webhooks and the Dashboard say why even when no provider was tried (Document 3: "a timeline explaining
 * why"; the timeline is empty when routing found no connector).
 */
/** failureCode: the one vocabulary (workflows/lib/failure-codes.ts); providerCode: the provider's own, when one decided. */
export interface FailureReason {
  failureCode: string;
  failureMessage: string;
  providerCode: string | null;
}

export const FAILURE_REASONS = {
  no_route: 'No connector of the routing plan can take this charge (payment method, card brand, currency or amount)',
  card_token_already_used: 'The card token was already used by another transaction',
  checkout_session_unavailable: 'The checkout session was being paid by another payment, or could no longer be paid',
  declined: 'The provider declined the charge',
  payment_failed: 'The provider reported that the pending payment failed',
  payment_expired: 'The payment was not completed before it expired',
  canceled: 'The pending payment was canceled before completion',
} as const;

const reason = (code: keyof typeof FAILURE_REASONS): FailureReason => ({
  failureCode: code,
  failureMessage: FAILURE_REASONS[code],
  providerCode: null,
});

/** The reason for a charge ending `to`; null when `to` took money (nothing to explain). */
export async function failureReasonOf(
  em: EntityManager,
  transactionId: string,
  to: TransactionStatus,
): Promise<FailureReason | null> {
  if (to === 'expired') return reason('payment_expired');
  if (to === 'canceled') return reason('canceled');
  if (to !== 'failed') return null;
  // A locking read: it waits for a payment.failed webhook that is recording the provider's reason on the attempt.
  const last = await lastAttemptOutcome(em, transactionId);
  if (last) {
    // A pending payment the provider then failed (its attempt had succeeded in going pending): the provider's own
    // reason when its read or webhook gave one (transactions.late-declines.ts), the generic one otherwise.
    if (last.status === 'success' || last.status === 'pending') {
      if (last.late_decline_code === null && last.late_decline_message === null) return reason('payment_failed');
      const code = last.late_decline_code;
      return {
        failureCode: code === null ? 'payment_failed' : attemptFailureCode(last.provider_slug, code, 'soft_decline')!,
        failureMessage: last.late_decline_message ?? FAILURE_REASONS.payment_failed,
        providerCode: code,
      };
    }
    return {
      failureCode: attemptFailureCode(last.provider_slug, last.error_code, last.outcome) ?? 'declined',
      failureMessage: last.message ?? FAILURE_REASONS.declined,
      providerCode: providerCodeOf(last.error_code),
    };
  }
  // Refused before any provider: its single-use token, or its checkout (which takes one payment), was another's.
  const refused = await refusalBeforeProvider(em, transactionId);
  if (refused?.token) return reason('card_token_already_used');
  return refused?.checkout ? reason('checkout_session_unavailable') : reason('no_route');
}
