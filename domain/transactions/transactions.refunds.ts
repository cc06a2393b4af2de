/** Refund settlement: the one write path for a refund's definitive result, used by the refund workflow and inbound provider webhooks. */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RefundSchema, TransactionSchema, type Transaction } from '../../db/entities';
import { hasUnannouncedSuccess, markSuccessesAnnounced } from '../../db/repositories/refunds.repository';
import { recordEvent } from '../events/events.outbox';
import { presentRefund, presentTransactionHeader } from './transactions.presenter';
import { applyTransactionMove } from './transactions.transitions';

/**
 * A refund's definitive result (from the provider's answer or its webhook): the refund row, the refunded amount
 * and the transaction's status once no other refund is pending. Idempotent: only a pending refund moves.
 */
export async function settleRefund(
  em: EntityManager,
  refundId: string,
  result: 'succeeded' | 'failed',
  providerReference: string | null,
  errorCode: string | null,
  triggeredBy: 'system' | 'psp_webhook',
): Promise<void> {
  const refund = await em.findOne(RefundSchema, { id: refundId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!refund || refund.status !== 'pending') return;
  const tx = await em.findOneOrFail(
    TransactionSchema,
    { id: refund.transactionId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  refund.status = result;
  refund.providerReference = providerReference ?? refund.providerReference;
  refund.errorCode = errorCode;
  refund.updatedAt = new Date();
  if (result === 'succeeded') tx.amountRefunded += refund.amount;
  await em.flush();
  // A success is reported by transaction.refunded / partially_refunded below (the catalog has no refund_succeeded).
  if (result === 'failed') {
    await recordEvent(em, {
      organizationId: tx.organizationId,
      merchantId: tx.merchantId,
      livemode: tx.livemode,
      type: 'transaction.refund_failed',
      object: presentRefund(refund),
    });
  }
  // Once the last pending refund settles, the transaction leaves refund_pending for the state its refunds say
  // (transactions.state-table.ts). A success not yet announced — this one, or one that settled while another refund
  // was still pending — makes that a refunds_succeeded move, which records transaction.refunded/partially_refunded
  // once for all of them; with none, a failure returns the transaction to where it was with only refund_failed.
  const moved = await applyTransactionMove(em, tx.id, {
    event: (await hasUnannouncedSuccess(em, tx.id)) ? 'refunds_succeeded' : 'refunds_failed',
    triggeredBy,
    key: `${refundId}:settled`,
  });
  if (moved) await markSuccessesAnnounced(em, tx.id);
}

/**
 * After a won dispute returned the transaction to the state its refunds say: a refund that succeeded while it was
 * charged_back moved nothing and was not announced, so it is announced now, once (transaction.refunded or
 * partially_refunded, after the dispute's own transaction.dispute_won). A refund still pending announces it later.
 */
export async function announceRefundsSettledDuringDispute(em: EntityManager, tx: Transaction): Promise<void> {
  if (tx.status !== 'refunded' && tx.status !== 'partially_refunded') return;
  if (!(await hasUnannouncedSuccess(em, tx.id))) return;
  await recordEvent(em, {
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    livemode: tx.livemode,
    type: tx.status === 'refunded' ? 'transaction.refunded' : 'transaction.partially_refunded',
    object: presentTransactionHeader(tx),
  });
  await markSuccessesAnnounced(em, tx.id);
}
