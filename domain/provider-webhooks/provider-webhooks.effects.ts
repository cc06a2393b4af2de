/**
 * What an authentic, new provider event does, inside the delivery's database transaction (its dedup row is
 * inserted there too, so a delivery that fails here leaves nothing behind and the provider's retry applies it).
 *
 * A connector's webhook acts only on that connector's own payments and refunds (a leaked token or secret of one
 * connector must not settle another's); an event naming nothing of ours changes nothing. pix/boleto verdicts are
 * signalled to the transaction's settlement workflow through the caller's `signalSettlement` (domain/ does not
 * reach Temporal itself); refund results and disputes move the transaction through
 * domain/transactions/transactions.transitions.ts (the same code the workflows use).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { RefundSchema, TransactionSchema, type Refund, type Transaction } from '../../db/entities';
import { linkProviderEventToTransaction } from '../../db/repositories/provider-webhook-events.repository';
import { handOverLatePayment, keepGiveBackVerdict } from '../../db/repositories/transaction-attempts.repository';
import type { SettlementSignal } from '../../workflows/lib/transaction-types';
import { UNRESOLVED_PROVIDER_CALL } from '../../workflows/lib/transaction-types';
import type { InboundWebhook } from '../connectors/connector';
import { recordActivity } from '../merchants/merchants.activity';
import { ApiError } from '../platform/errors';
import { recordWebhookDecline } from '../transactions/transactions.late-declines';
import { keepOperationVerdict } from '../transactions/transactions.operation-writes';
import { settleRefund } from '../transactions/transactions.refunds';
import { closeDispute, openDispute, updateDispute } from './provider-webhooks.disputes';
import { effectOf, paymentVerdictEffect } from './provider-webhooks.mapping';

/** Why an authentic event was recorded but not applied; null when it was applied (or named nothing of ours). */
export type Refusal = 'AMOUNT_MISMATCH' | null;

export interface EffectScope {
  connectorId: string;
  merchantId: string;
  /**
   * Tells the transaction's settlement workflow the provider's verdict; false when it has none (yet). Called inside
   * the delivery's database transaction, so the verdict is signalled only for a delivery seen for the first time.
   */
  signalSettlement(transactionId: string, signal: SettlementSignal): Promise<boolean>;
}

async function findTransaction(
  em: EntityManager,
  scope: EffectScope,
  event: InboundWebhook,
): Promise<Transaction | null> {
  const { merchantId, connectorId } = scope;
  const byRef = await em.findOne(TransactionSchema, {
    merchantId,
    connectorId,
    providerReference: event.providerReference,
  });
  if (byRef) return byRef;
  return event.reference?.startsWith('tx_')
    ? em.findOne(TransactionSchema, { id: event.reference, merchantId, connectorId })
    : null;
}

/** The refund the event names, only if it belongs to a transaction charged through this connector. */
async function findRefund(em: EntityManager, scope: EffectScope, event: InboundWebhook): Promise<Refund | null> {
  const { merchantId, connectorId } = scope;
  const refund =
    (event.reference?.startsWith('ref_')
      ? await em.findOne(RefundSchema, { id: event.reference, merchantId })
      : null) ?? (await em.findOne(RefundSchema, { merchantId, providerReference: event.providerReference }));
  if (!refund) return null;
  const charged = await em.count(TransactionSchema, { id: refund.transactionId, merchantId, connectorId });
  return charged > 0 ? refund : null;
}

export async function applyProviderEvent(
  em: EntityManager,
  scope: EffectScope,
  event: InboundWebhook,
): Promise<Refusal> {
  const effect = effectOf(event);
  if (effect.kind === 'refund') {
    const refund = await findRefund(em, scope, event);
    if (refund) await settleRefund(em, refund.id, effect.result, event.providerReference, null, 'psp_webhook');
    // Not a merchant's refund: it may be the reconciler's give-back of a charge, which it follows until decided.
    else if (event.providerReference)
      await keepGiveBackVerdict(
        em,
        { merchantId: scope.merchantId, connectorId: scope.connectorId },
        { providerReference: event.providerReference, status: effect.result },
        UNRESOLVED_PROVIDER_CALL,
      );
    return null;
  }
  const tx = await findTransaction(em, scope, event);
  if (!tx) return null;
  // A dispute's moves are applied once per provider event.
  const key = `${scope.connectorId}:${event.eventId}`;
  switch (effect.kind) {
    case 'operation':
      // A capture or void decided where the provider cannot be read: kept for the operation waiting on it.
      await keepOperationVerdict(em, tx.id, effect.operation, effect.result);
      return null;
    case 'payment':
      return applyPaymentVerdict(em, scope, tx, event);
    case 'dispute_opened':
      await openDispute(em, tx, key);
      return null;
    case 'dispute_updated':
      await updateDispute(em, tx);
      return null;
    case 'dispute_closed':
      await closeDispute(em, tx, effect.outcome, key);
      return null;
  }
}

async function applyPaymentVerdict(
  em: EntityManager,
  scope: EffectScope,
  tx: Transaction,
  event: InboundWebhook,
): Promise<Refusal> {
  switch (paymentVerdictEffect(tx, event)) {
    case 'ignore':
      return null;
    case 'give_back':
      await giveBackLatePayment(em, scope.connectorId, tx, event);
      return null;
    case 'amount_mismatch':
      return refuseAmountMismatch(em, scope.connectorId, tx, event);
    case 'signal':
      break;
  }
  await recordWebhookDecline(em, tx.id, event);
  const signalled = await scope.signalSettlement(tx.id, {
    type: event.type as SettlementSignal['type'],
    eventId: event.eventId,
  });
  if (!signalled) {
    // Pending but no settlement workflow yet (the webhook raced the charge's last step): fail so the whole
    // delivery rolls back (dedup row included) and the provider retries it a moment later.
    throw new ApiError(
      503,
      'external_service_error',
      'SETTLEMENT_NOT_READY',
      'The payment is not ready for this event yet; retry',
    );
  }
  return null;
}

/**
 * A payment.succeeded for another amount than the charge's is not applied (the charge stays pending and expires
 * unless the right amount arrives). It is recorded on the event row and in the merchant's activity log for someone
 * to reconcile with the provider.
 */
async function refuseAmountMismatch(
  em: EntityManager,
  connectorId: string,
  tx: Transaction,
  event: InboundWebhook,
): Promise<Refusal> {
  await linkProviderEventToTransaction(em, { connectorId, providerEventId: event.eventId }, tx.id);
  recordActivity(em, {
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    action: 'transaction.provider_amount_mismatch',
    actor: { type: 'system', id: null },
    changes: {
      transaction_id: tx.id,
      connector_id: connectorId,
      provider_event_id: event.eventId,
      event_type: event.type,
      expected_amount: tx.amount,
      received_amount: event.amount,
      currency: tx.currency,
    },
  });
  await em.flush();
  return 'AMOUNT_MISMATCH';
}

/**
 * Money the provider took after the charge ended unpaid: the transaction stays as it answered — its checkout was
 * reopened, the buyer may pay again — and the payment is given back by the reconciler (handOverLatePayment), the
 * merchant's activity log saying so.
 */
async function giveBackLatePayment(
  em: EntityManager,
  connectorId: string,
  tx: Transaction,
  event: InboundWebhook,
): Promise<void> {
  const key = { transactionId: tx.id, connectorId };
  if (!(await handOverLatePayment(em, key, event.providerReference, UNRESOLVED_PROVIDER_CALL))) return;
  recordActivity(em, {
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    action: 'transaction.late_payment_given_back',
    actor: { type: 'system', id: null },
    changes: {
      transaction_id: tx.id,
      connector_id: connectorId,
      provider_event_id: event.eventId,
      provider_reference: event.providerReference,
      amount: event.amount ?? tx.amount,
      currency: tx.currency,
    },
  });
  await em.flush();
}
