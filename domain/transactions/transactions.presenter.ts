/** Document 3's transaction (with its timeline), attempt and refund shapes: snake_case, ISO timestamps, explicit nulls. */
import type { Refund, Transaction, TransactionAttempt } from '../../db/entities';
import { providerCodeOf } from '../../workflows/lib/failure-codes';
import { attemptFailureCode } from '../connectors/failure-codes';
import { nextActionOf, presentThreeDs } from '../../workflows/lib/three-ds';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The transaction header: what events carry as data.object (Document 1, Events rule 4) and lists show. */
export function presentTransactionHeader(tx: Transaction) {
  return {
    id: tx.id,
    organization_id: tx.organizationId,
    merchant_id: tx.merchantId,
    order_id: tx.orderId,
    subscription_id: tx.subscriptionId,
    external_order_id: tx.externalOrderId,
    customer_id: tx.customerId,
    payment_instrument_id: tx.paymentInstrumentId,
    // What was asked for: a failed or pending payment has nothing authorized, yet people want to see its amount.
    amount: tx.amount,
    amount_authorized: tx.amountAuthorized,
    amount_captured: tx.amountCaptured,
    amount_refunded: tx.amountRefunded,
    currency: tx.currency,
    payment_method: tx.paymentMethod,
    wallet_type: tx.walletType,
    charge_type: tx.chargeType,
    livemode: tx.livemode,
    country: tx.country,
    status: tx.status,
    capture: tx.capture,
    risk_score: tx.riskScore,
    installments: tx.installments,
    applied_routing_rule_id: tx.appliedRoutingRuleId,
    payment_instructions: tx.paymentInstructions,
    failure_code: tx.failureCode ?? null,
    failure_message: tx.failureMessage ?? null,
    provider_code: tx.providerCode ?? null,
    metadata: tx.metadata,
    created_at: tx.createdAt.toISOString(),
    updated_at: tx.updatedAt.toISOString(),
  };
}

export function presentTimelineEntry(attempt: TransactionAttempt) {
  return {
    attempt_number: attempt.attemptNumber,
    is_fallback: attempt.isFallback,
    connector_id: attempt.connectorId,
    provider_slug: attempt.providerSlug,
    status: attempt.status,
    started_at: attempt.startedAt.toISOString(),
    finished_at: iso(attempt.finishedAt),
    error_category: attempt.errorCategory,
    // The one vocabulary (as the transaction's failure_code), and the provider's own code beside it.
    error_code: attemptFailureCode(attempt.providerSlug, attempt.errorCode, attempt.outcome),
    provider_code: providerCodeOf(attempt.errorCode),
    three_ds: attempt.threeDs ? presentThreeDs(attempt.threeDs) : null,
  };
}

export function presentTransaction(tx: Transaction, attempts: TransactionAttempt[]) {
  const last = attempts.at(-1);
  return {
    ...presentTransactionHeader(tx),
    // A pending charge whose last attempt awaits the buyer's challenge says where to send them.
    next_action: tx.status === 'pending' ? nextActionOf(last?.threeDs) : null,
    timeline: attempts.map(presentTimelineEntry),
  };
}

/** GET /transactions/:id/attempts: the timeline entry plus routing node, provider reference and message. */
export function presentAttempt(attempt: TransactionAttempt) {
  return {
    ...presentTimelineEntry(attempt),
    routing_node_id: attempt.routingNodeId,
    outcome: attempt.outcome,
    provider_reference: attempt.providerReference,
    error_message: attempt.errorMessage,
    three_ds_status: attempt.threeDs?.status ?? null,
    // Not modelled by the sandbox adapters: documented as null until a provider reports it.
    gateway_fee: null,
  };
}

export function presentRefund(refund: Refund) {
  return {
    id: refund.id,
    transaction_id: refund.transactionId,
    merchant_id: refund.merchantId,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status,
    reason: refund.reason,
    error_code: refund.errorCode,
    metadata: refund.metadata,
    created_at: refund.createdAt.toISOString(),
    updated_at: refund.updatedAt.toISOString(),
  };
}
