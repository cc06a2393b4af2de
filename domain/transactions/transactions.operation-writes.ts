/**
 * The writes of capture, void and refund, each run by one step of the operation workflow inside its own database
 * transaction (activities/transactions/operations.ts opens it and calls the provider): begin checks the move under the
 * transaction's row lock and reserves it (capture_pending and the owning operation, or a pending refund row), or
 * answers the 422 code; finish applies the provider's definitive answer. Which state allows the operation, and the
 * 422 it answers otherwise, is the state table's (OPERATION_MOVES); the amount and connector checks are here.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantConnectorSchema, RefundSchema, TransactionSchema, type Transaction } from '../../db/entities';
import { pendingRefundTotal, recordRefundReference } from '../../db/repositories/refunds.repository';
import { recordOperationVerdict, releaseOperationOwner } from '../../db/repositories/transactions.repository';
import type { Outcome } from '../connectors/connector';
import { recordEvent } from '../events/events.outbox';
import { clearOperationInDoubt } from './transactions.in-doubt';
import { applyTransactionMove } from './transactions.transitions';
import { canApply, operationRefusal } from './transactions.state-table';
import { settleRefund } from './transactions.refunds';
import { presentRefund } from './transactions.presenter';
import { OPERATION_IN_PROGRESS, type OperationInput, type OperationStart } from '../../workflows/lib/transaction-types';

const rejection = (code: string, message: string): OperationStart => ({ ok: false, code, message });

/**
 * The charge's connector was deleted: nothing can reach its provider (no credentials), so the move is refused before
 * anything is recorded. The row is share-locked so a delete waits for this move and then finds it in motion.
 */
async function connectorDeleted(em: EntityManager, tx: Transaction): Promise<OperationStart | null> {
  const connector = await em.findOne(
    MerchantConnectorSchema,
    { id: tx.connectorId!, merchantId: tx.merchantId },
    { lockMode: LockMode.PESSIMISTIC_READ },
  );
  if (connector) return null;
  return rejection(
    'CONNECTOR_DELETED',
    'The connector that made this charge was deleted, so its provider cannot be reached; do this at the provider',
  );
}

/** Captured minus refunded minus refunds still pending: what a new refund may take. */
async function refundableBalance(em: EntityManager, tx: Transaction): Promise<number> {
  return tx.amountCaptured - tx.amountRefunded - (await pendingRefundTotal(em, tx.id));
}

/**
 * Checks the capture, void or refund under the transaction's row lock and reserves the move, or returns the 422
 * (409 for OPERATION_IN_PROGRESS) the API answers. A retried begin finds what it reserved and carries on.
 */
export async function beginOperation(em: EntityManager, input: OperationInput): Promise<OperationStart> {
  const tx = await em.findOne(TransactionSchema, { id: input.transactionId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!tx) return rejection('RESOURCE_NOT_FOUND', 'No such transaction');
  if (input.kind === 'refund') {
    // A retried begin finds its own refund row and carries on.
    const existing = await em.findOne(RefundSchema, { id: input.refundId! });
    if (existing)
      return {
        ok: true,
        amount: existing.amount,
        currency: tx.currency,
        connectorId: tx.connectorId!,
        providerReference: tx.providerReference!,
      };
    const refused = operationRefusal('refund', tx);
    if (refused) return rejection(refused.code, refused.message);
    const balance = await refundableBalance(em, tx);
    const amount = input.amount ?? balance;
    if (balance <= 0)
      return rejection(
        'TRANSACTION_ALREADY_REFUNDED',
        'Nothing is left to refund (pending refunds count against the balance)',
      );
    if (amount > balance) return rejection('REFUND_EXCEEDS_BALANCE', `At most ${balance} can be refunded`);
    const gone = await connectorDeleted(em, tx);
    if (gone) return gone;
    const refund = em.create(RefundSchema, {
      id: input.refundId!,
      organizationId: tx.organizationId,
      merchantId: tx.merchantId,
      transactionId: tx.id,
      amount,
      currency: tx.currency,
      status: 'pending',
      reason: input.reason ?? null,
      providerReference: null,
      errorCode: null,
      metadata: input.metadata ?? null,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    await em.flush();
    await recordEvent(em, {
      organizationId: tx.organizationId,
      merchantId: tx.merchantId,
      livemode: tx.livemode,
      type: 'transaction.refund_created',
      object: presentRefund(refund),
    });
    await applyTransactionMove(em, tx.id, {
      event: 'refund_requested',
      triggeredBy: 'api',
      key: `${input.operationId}:begin`,
    });
    return {
      ok: true,
      amount,
      currency: tx.currency,
      connectorId: tx.connectorId!,
      providerReference: tx.providerReference!,
    };
  }
  const amount = input.kind === 'capture' ? (input.amount ?? tx.amountAuthorized) : tx.amountAuthorized;
  const start = {
    ok: true as const,
    amount,
    currency: tx.currency,
    connectorId: tx.connectorId!,
    providerReference: tx.providerReference!,
  };
  // A retried begin of the operation that owns the move carries on with what it reserved.
  if (tx.pendingOperationId === input.operationId) return start;
  // Another capture or void is under way (capture_pending without an owner predates owners: same answer).
  // Letting this one through would reach the provider a second time, under another idempotency key.
  if (tx.pendingOperationId || tx.status === 'capture_pending') {
    return rejection(
      OPERATION_IN_PROGRESS,
      'Another capture or void of this transaction is in progress; read the transaction once it finishes',
    );
  }
  const refused = operationRefusal(input.kind, tx);
  if (refused) return rejection(refused.code, refused.message);
  if (amount > tx.amountAuthorized)
    return rejection('CAPTURE_EXCEEDS_AUTHORIZED', `At most ${tx.amountAuthorized} can be captured`);
  const gone = await connectorDeleted(em, tx);
  if (gone) return gone;
  tx.pendingOperationId = input.operationId;
  await em.flush();
  if (input.kind === 'capture') {
    await applyTransactionMove(em, tx.id, {
      event: 'capture_requested',
      triggeredBy: 'api',
      key: `${input.operationId}:begin`,
    });
  }
  return start;
}

/** The provider's answer to a capture, void or refund, as the operation workflow finishes it. */
export type FinishOperationInput = OperationInput & {
  start: Extract<OperationStart, { ok: true }>;
  outcome: Outcome;
  providerReference: string | null;
  rawCode: string | null;
};

/**
 * Applies the provider's definitive answer: the capture or void moves the transaction (and releases its owner), the
 * refund is settled or keeps the provider's reference while pending. An unknown answer moves nothing.
 */
export async function finishOperation(em: EntityManager, input: FinishOperationInput): Promise<void> {
  const key = `${input.operationId}:finish`;
  // No definitive answer: nothing moves. The capture stays capture_pending (its owner kept, so no second
  // capture or void reaches the provider under another key), the refund pending; the workflow looks it up.
  if (input.outcome === 'unknown') return;
  // Released in the same database transaction as the move it guarded (before loading the row, so the
  // entity the move flushes already holds the cleared owner).
  await releaseOperationOwner(em, input.transactionId, input.operationId);
  if (input.kind !== 'refund') await clearOperationInDoubt(em, input.transactionId);
  const approved = input.outcome === 'approved';
  if (input.kind === 'capture') {
    await applyTransactionMove(
      em,
      input.transactionId,
      approved
        ? {
            event: 'capture_succeeded',
            triggeredBy: 'system',
            key,
            patch: { amountCaptured: input.start.amount },
          }
        : { event: 'capture_refused', triggeredBy: 'system', key },
    );
    return;
  }
  if (input.kind === 'void') {
    if (approved)
      await applyTransactionMove(em, input.transactionId, {
        event: 'void_succeeded',
        triggeredBy: 'system',
        key,
      });
    return;
  }
  if (approved) await settleRefund(em, input.refundId!, 'succeeded', input.providerReference, null, 'system');
  else if (input.outcome === 'pending') await recordRefundReference(em, input.refundId!, input.providerReference);
  // A decline, or a refund the provider refused unprocessed (processing_error) or never received
  // (network_error, not_processed): nothing was refunded, so the refund fails rather than stay pending forever.
  else await settleRefund(em, input.refundId!, 'failed', input.providerReference, input.rawCode, 'system');
}

/**
 * The provider's notification that it decided a capture or void (where it cannot be read: Adyen), kept with the
 * operation it answers — the transaction's pending one, if the state table still lets that operation finish — for
 * the operation workflow's next lookup (operationVerdictOf in db/repositories/transactions.repository.ts). Returns whether it was kept.
 */
export async function keepOperationVerdict(
  em: EntityManager,
  transactionId: string,
  kind: 'capture' | 'void',
  verdict: 'succeeded' | 'failed',
): Promise<boolean> {
  const tx = await em.findOne(TransactionSchema, { id: transactionId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!tx?.pendingOperationId) return false;
  if (!canApply(tx.status, kind === 'capture' ? 'capture_succeeded' : 'void_succeeded')) return false;
  await recordOperationVerdict(em, tx.id, tx.pendingOperationId, verdict);
  return true;
}
