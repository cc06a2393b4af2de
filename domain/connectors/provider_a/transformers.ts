/**
 * provider_a (Stripe-like) responses → ProviderResult, and its webhook event types → ours. Every provider code is
 * mapped here and nowhere else; the tables are unit-tested row by row (test/unit/connectors-provider-a.test.ts).
 */
import type { FailureCodeTable } from '../../../workflows/lib/failure-codes';
import type { InboundWebhook, Outcome, ProviderResult } from '../connector';
import type { ThreeDsStatus } from '../../../workflows/lib/three-ds';
import { field, keyStillInUse, result, safeMessage, serverFailure, type ProviderResponse } from '../http';

/** decline_code (or error code when there is none) → outcome. Unknown codes are soft: another connector may approve. */
export const DECLINE_CODES: Readonly<Record<string, Outcome>> = {
  generic_decline: 'soft_decline',
  do_not_honor: 'soft_decline',
  insufficient_funds: 'soft_decline',
  card_velocity_exceeded: 'soft_decline',
  try_again_later: 'soft_decline',
  issuer_not_available: 'soft_decline',
  authentication_required: 'soft_decline',
  approve_with_id: 'soft_decline',
  call_issuer: 'soft_decline',
  incorrect_cvc: 'soft_decline',
  card_not_supported: 'soft_decline',
  currency_not_supported: 'soft_decline',
  stolen_card: 'hard_decline',
  lost_card: 'hard_decline',
  pickup_card: 'hard_decline',
  restricted_card: 'hard_decline',
  expired_card: 'hard_decline',
  incorrect_number: 'hard_decline',
  invalid_number: 'hard_decline',
  invalid_account: 'hard_decline',
  fraudulent: 'hard_decline',
  merchant_blacklist: 'hard_decline',
  security_violation: 'hard_decline',
  processing_error: 'processing_error',
  // The buyer failed 3-D Secure: another connector would only challenge them again.
  payment_intent_authentication_failure: 'hard_decline',
};

/** PaymentIntent / SetupIntent status → outcome for authorize and verify. */
export const INTENT_STATUSES: Readonly<Record<string, Outcome>> = {
  succeeded: 'approved',
  requires_capture: 'approved',
  processing: 'pending',
  requires_payment_method: 'soft_decline',
  requires_action: 'soft_decline',
  requires_confirmation: 'processing_error',
  canceled: 'soft_decline',
};

/** Refund status → outcome. A failed refund will not succeed elsewhere: hard. */
export const REFUND_STATUSES: Readonly<Record<string, Outcome>> = {
  succeeded: 'approved',
  pending: 'pending',
  requires_action: 'pending',
  failed: 'hard_decline',
  canceled: 'hard_decline',
};

/** Webhook event type → ours; refund.updated depends on the refund's status (see webhookType). */
export const EVENT_TYPES: Readonly<Record<string, InboundWebhook['type']>> = {
  'payment_intent.succeeded': 'payment.succeeded',
  'payment_intent.payment_failed': 'payment.failed',
  'payment_intent.canceled': 'payment.expired',
  'refund.failed': 'refund.failed',
  'charge.dispute.created': 'dispute.opened',
  'charge.dispute.updated': 'dispute.updated',
  'charge.dispute.funds_withdrawn': 'dispute.updated',
  'charge.dispute.closed': 'dispute.closed',
};

export const REFUND_EVENT_STATUSES: Readonly<Record<string, InboundWebhook['type']>> = {
  succeeded: 'refund.succeeded',
  failed: 'refund.failed',
  canceled: 'refund.failed',
};

type Kind = 'payment_intent' | 'setup_intent';

/** Errors that are not card declines: our request or our credentials were refused. Retryable on another connector. */
function requestError(error: Record<string, unknown>, status: number): ProviderResult {
  if (status === 409 && error.code === 'idempotency_key_in_use') return keyStillInUse('idempotency_key_in_use');
  const code = field.str(error.code) ?? field.str(error.type) ?? `http_${status}`;
  return result('processing_error', { rawCode: code, rawMessage: safeMessage(status, field.str(error.message)) });
}

/** authorize / verify: a 200 intent, a 402 card_error carrying the intent, or an error. */
export function fromIntent(response: ProviderResponse, kind: Kind): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  const error = field.obj(response.body?.error);
  if (response.status === 402 && error.type === 'card_error') {
    const code = field.str(error.decline_code) ?? field.str(error.code) ?? 'card_declined';
    const intent = field.obj(error[kind]);
    return result(DECLINE_CODES[code] ?? 'soft_decline', {
      providerReference: field.str(intent.id),
      rawCode: code,
      rawMessage: field.str(error.message),
    });
  }
  if (response.status !== 200 || !response.body) return requestError(error, response.status);
  const body = response.body;
  const status = field.str(body.status) ?? '';
  const lastError = field.obj(body.last_payment_error ?? body.last_setup_error);
  const charge = field.obj(body.latest_charge);
  const networkTransactionId =
    field.str(field.obj(field.obj(charge.payment_method_details).card).network_transaction_id) ??
    field.str(field.obj(body.latest_attempt).network_transaction_id);
  const declineCode = field.str(lastError.decline_code) ?? field.str(lastError.code);
  const threeDs = threeDsOf(field.obj(field.obj(field.obj(charge.payment_method_details).card).three_d_secure));
  // The issuer challenges the buyer: the payment waits at the provider until they complete it.
  const nextAction = field.obj(body.next_action);
  const challengeUrl =
    status === 'requires_action' && nextAction.type === 'redirect_to_url'
      ? field.str(field.obj(nextAction.redirect_to_url).url)
      : null;
  if (challengeUrl)
    return result('pending', { providerReference: field.str(body.id), rawCode: status, challengeUrl, threeDs });
  // A failed confirmation returned as 200 (not 402) still carries its decline code: that decides, not the status.
  const outcome =
    status === 'requires_payment_method' && declineCode
      ? (DECLINE_CODES[declineCode] ?? 'soft_decline')
      : INTENT_STATUSES[status];
  return result(outcome ?? 'processing_error', {
    providerReference: field.str(body.id),
    rawCode: declineCode ?? status,
    rawMessage: field.str(lastError.message),
    networkTransactionId,
    threeDs,
  });
}

/** Stripe's three_d_secure result → ours: how the issuer authenticated, with the liability shift it implies. */
const THREE_DS_RESULTS: Readonly<Record<string, ThreeDsStatus>> = {
  authenticated: 'authenticated',
  attempt_acknowledged: 'frictionless',
  failed: 'failed',
  processing_error: 'failed',
  not_supported: 'unsupported',
  exempted: 'not_requested',
};

/** The charge's `payment_method_details.card.three_d_secure`; null when no authentication ran. */
export function threeDsOf(details: Record<string, unknown>): ProviderResult['threeDs'] {
  const outcome = field.str(details.result);
  if (!outcome) return null;
  const status = THREE_DS_RESULTS[outcome] ?? 'failed';
  const frictionless = status === 'authenticated' && details.authentication_flow === 'frictionless';
  return {
    status: frictionless ? 'frictionless' : status,
    version: field.str(details.version),
    eci: field.str(details.electronic_commerce_indicator),
    liability_shift: outcome === 'authenticated' || outcome === 'attempt_acknowledged',
  };
}

/** capture / void: 200 with the intent in its new status. */
export function fromModification(response: ProviderResponse, expectedStatus: 'succeeded' | 'canceled'): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  if (response.status !== 200 || !response.body) return requestError(field.obj(response.body?.error), response.status);
  const status = field.str(response.body.status) ?? '';
  return result(status === expectedStatus ? 'approved' : 'processing_error', {
    providerReference: field.str(response.body.id),
    rawCode: status,
  });
}

export function fromRefund(response: ProviderResponse): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  if (response.status !== 200 || !response.body) return requestError(field.obj(response.body?.error), response.status);
  const status = field.str(response.body.status) ?? '';
  return result(REFUND_STATUSES[status] ?? 'processing_error', {
    providerReference: field.str(response.body.id),
    rawCode: field.str(response.body.failure_reason) ?? status,
  });
}

/** Our type for a provider event, or null when we do not act on it. */
export function webhookType(eventType: string, object: Record<string, unknown>): InboundWebhook['type'] | null {
  if (eventType === 'refund.updated' || eventType === 'charge.refund.updated')
    return REFUND_EVENT_STATUSES[field.str(object.status) ?? ''] ?? null;
  // A manual-capture intent the provider approved (after a review hold): Stripe's only word that an uncaptured
  // payment is authorized (payment_intent.succeeded comes once it is captured). The charge's own capture mode makes
  // it pre_authorized. An intent with nothing capturable left was captured or cancelled: its own event says so.
  if (eventType === 'payment_intent.amount_capturable_updated')
    return field.str(object.status) === 'requires_capture' && (field.num(object.amount_capturable) ?? 0) > 0
      ? 'payment.succeeded'
      : null;
  return EVENT_TYPES[eventType] ?? null;
}

/** The id our records know: the refund's for refund events, the PaymentIntent's otherwise. */
export function webhookProviderReference(type: InboundWebhook['type'], object: Record<string, unknown>): string | null {
  if (type.startsWith('refund.')) return field.str(object.id);
  if (type.startsWith('dispute.')) return field.str(object.payment_intent);
  return field.str(object.id);
}

/** Stripe's decline_code (or error code) → failure_code: Stripe's own words, so most codes stay; the lost, stolen and pick-up codes are one, and a PaymentIntent left requiring action asks for 3-D Secure. Codes not listed read by their outcome (workflows/lib/failure-codes.ts). */
export const FAILURE_CODES: FailureCodeTable = {
  card_declined: 'generic_decline',
  issuer_not_available: 'try_again_later',
  approve_with_id: 'try_again_later',
  call_issuer: 'do_not_honor',
  stolen_card: 'lost_or_stolen',
  lost_card: 'lost_or_stolen',
  pickup_card: 'lost_or_stolen',
  incorrect_number: 'invalid_number',
  invalid_account: 'invalid_number',
  invalid_expiry_month: 'incorrect_expiry',
  invalid_expiry_year: 'incorrect_expiry',
  merchant_blacklist: 'fraudulent',
  security_violation: 'do_not_honor',
  requires_action: 'authentication_required',
  requires_payment_method: 'generic_decline',
};
