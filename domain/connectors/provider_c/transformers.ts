/**
 * provider_c (Mercado Pago-like) responses → ProviderResult and notifications → ours. A payment's status decides
 * first; a rejected one is classified by status_detail; card-token errors by their cause code. Tables unit-tested
 * row by row (test/unit/connectors-provider-c.test.ts).
 */
import type { FailureCodeTable } from '../../../workflows/lib/failure-codes';
import type { InboundWebhook, Outcome, ProviderResult } from '../connector';
import { field, keyStillInUse, result, safeMessage, serverFailure, type ProviderResponse } from '../http';

export const PAYMENT_STATUSES: Readonly<Record<string, Outcome>> = {
  approved: 'approved',
  authorized: 'approved',
  in_process: 'pending',
  pending: 'pending',
  in_mediation: 'pending',
  cancelled: 'soft_decline',
};

/** status_detail of a rejected payment → outcome. Unknown details are soft. */
export const REJECTION_DETAILS: Readonly<Record<string, Outcome>> = {
  cc_rejected_other_reason: 'soft_decline',
  cc_rejected_call_for_authorize: 'soft_decline',
  cc_rejected_insufficient_amount: 'soft_decline',
  cc_rejected_bad_filled_other: 'soft_decline',
  cc_rejected_bad_filled_security_code: 'soft_decline',
  cc_rejected_card_disabled: 'soft_decline',
  cc_rejected_invalid_installments: 'soft_decline',
  cc_rejected_max_attempts: 'soft_decline',
  cc_rejected_card_error: 'processing_error',
  cc_rejected_bad_filled_card_number: 'hard_decline',
  cc_rejected_bad_filled_date: 'hard_decline',
  cc_rejected_blacklist: 'hard_decline',
  cc_rejected_high_risk: 'hard_decline',
  // A duplicate is refused so the shopper is not charged twice: never retry it elsewhere.
  cc_rejected_duplicated_payment: 'hard_decline',
  rejected_high_risk: 'hard_decline',
  rejected_by_regulations: 'hard_decline',
  rejected_by_bank: 'soft_decline',
  rejected_insufficient_data: 'soft_decline',
  // The buyer failed 3-D Secure: another connector would only challenge them again.
  cc_rejected_3ds_challenge: 'hard_decline',
  // The issuer demands 3-D Secure this payment did not run: a connector that runs it may authenticate.
  cc_rejected_3ds_mandatory: 'soft_decline',
};

/** Card-token (/v1/card_tokens) cause codes: the card data itself was refused. */
export const CARD_TOKEN_CAUSES: Readonly<Record<string, Outcome>> = {
  E301: 'hard_decline', // card_number invalid
  '205': 'hard_decline', // card_number empty
  '208': 'hard_decline', // expiration_month invalid
  '209': 'hard_decline', // expiration_year invalid
  '325': 'hard_decline', // expiration_month invalid
  '326': 'hard_decline', // expiration_year invalid
  E302: 'soft_decline', // security_code invalid
  '224': 'soft_decline', // security_code empty
};

export const REFUND_STATUSES: Readonly<Record<string, Outcome>> = {
  approved: 'approved',
  in_process: 'pending',
  rejected: 'hard_decline',
  cancelled: 'hard_decline',
};

/** `${type}:${data.status or action}` → ours. */
export const EVENT_TYPES: Readonly<Record<string, InboundWebhook['type']>> = {
  'payment:approved': 'payment.succeeded',
  'payment:rejected': 'payment.failed',
  // Mercado Pago cancels a payment that lapsed unpaid or that a party called off; a refusal is `rejected`.
  'payment:cancelled': 'payment.expired',
  'payment:expired': 'payment.expired',
  'payment:refunded': 'refund.succeeded',
  'refund:approved': 'refund.succeeded',
  'refund:rejected': 'refund.failed',
  'refund:cancelled': 'refund.failed',
  'chargebacks:chargeback.created': 'dispute.opened',
  'chargebacks:chargeback.updated': 'dispute.updated',
  'chargebacks:chargeback.closed': 'dispute.closed',
};

function firstCause(body: Record<string, unknown> | null): string | null {
  return field.str(field.obj(field.list(body?.cause)[0]).code);
}

/**
 * Our request or credentials refused (4xx): retryable on another connector. Except 409, the X-Idempotency-Key
 * conflict (the key was used already, maybe still processing): unknown.
 */
function requestError(response: ProviderResponse): ProviderResult {
  const body = response.body;
  if (response.status === 409) return keyStillInUse(field.str(body?.error) ?? 'http_409');
  return result('processing_error', {
    rawCode: firstCause(body) ?? field.str(body?.error) ?? `http_${response.status}`,
    rawMessage: safeMessage(response.status, field.str(body?.message)),
  });
}

/** /oauth/token failed: the client credentials were refused. */
export function fromTokenFailure(response: ProviderResponse): ProviderResult {
  return (
    serverFailure(response) ??
    result('processing_error', {
      rawCode: field.str(response.body?.error) ?? `http_${response.status}`,
      rawMessage: safeMessage(response.status, field.str(response.body?.message)),
    })
  );
}

/** /v1/card_tokens: null when the token was created (the caller reads its id), a result otherwise. */
export function fromCardToken(response: ProviderResponse): ProviderResult | null {
  const failed = serverFailure(response);
  if (failed) return failed;
  if (response.status === 201 || response.status === 200) return null;
  const cause = firstCause(response.body);
  if (response.status === 400 && cause && CARD_TOKEN_CAUSES[cause]) {
    return result(CARD_TOKEN_CAUSES[cause], {
      rawCode: cause,
      rawMessage: field.str(field.obj(field.list(response.body?.cause)[0]).description),
    });
  }
  return requestError(response);
}

export function fromPayment(response: ProviderResponse): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  if ((response.status !== 200 && response.status !== 201) || !response.body) return requestError(response);
  const body = response.body;
  const status = field.str(body.status) ?? '';
  const detail = field.str(body.status_detail);
  const challengeUrl = field.str(field.obj(body.three_ds_info).external_resource_url);
  // The issuer challenges the buyer: the payment waits, pending_challenge, until they complete three_ds_info's page.
  if (status === 'pending' && detail === 'pending_challenge' && challengeUrl)
    return result('pending', {
      providerReference: field.str(body.id),
      rawCode: detail,
      rawMessage: status,
      challengeUrl,
    });
  const outcome =
    status === 'rejected'
      ? (REJECTION_DETAILS[detail ?? ''] ?? 'soft_decline')
      : (PAYMENT_STATUSES[status] ?? 'processing_error');
  const data = field.obj(field.obj(body.point_of_interaction).transaction_data);
  return result(outcome, {
    providerReference: field.str(body.id),
    rawCode: detail ?? status,
    rawMessage: status,
    networkTransactionId: field.str(body.network_transaction_id),
    threeDs: challengeUrl ? challengeResult(detail) : null,
    paymentInstructions: data.qr_code
      ? {
          type: 'pix',
          qr_code_text: field.str(data.qr_code),
          qr_code_url: field.str(data.ticket_url),
          expires_at: field.str(body.date_of_expiration),
        }
      : null,
  });
}

/**
 * A decided payment that was challenged (three_ds_info stays on it): Mercado Pago states a failed challenge in
 * status_detail only (cc_rejected_3ds_challenge); any other answer came after the buyer authenticated. It reports no
 * version or ECI.
 */
function challengeResult(detail: string | null): ProviderResult['threeDs'] {
  const failed = detail === 'cc_rejected_3ds_challenge';
  return { status: failed ? 'failed' : 'authenticated', version: null, eci: null, liability_shift: !failed };
}

/** capture (status approved) / void (status cancelled): anything else means the update did not take. */
export function fromUpdate(response: ProviderResponse, expected: 'approved' | 'cancelled'): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  if (response.status !== 200 || !response.body) return requestError(response);
  const status = field.str(response.body.status) ?? '';
  return result(status === expected ? 'approved' : 'processing_error', {
    providerReference: field.str(response.body.id),
    rawCode: field.str(response.body.status_detail) ?? status,
  });
}

export function fromRefund(response: ProviderResponse): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  if ((response.status !== 200 && response.status !== 201) || !response.body) return requestError(response);
  const status = field.str(response.body.status) ?? '';
  return result(REFUND_STATUSES[status] ?? 'processing_error', {
    providerReference: field.str(response.body.id),
    rawCode: status,
  });
}

export function webhookType(
  type: string,
  action: string,
  data: Record<string, unknown>,
): InboundWebhook['type'] | null {
  if (type === 'chargebacks') return EVENT_TYPES[`chargebacks:${action}`] ?? null;
  const status = field.str(data.status) ?? '';
  // A cancelled payment whose detail is "expired" lapsed unpaid (pix not paid in time).
  const key = type === 'payment' && status === 'cancelled' && data.status_detail === 'expired' ? 'expired' : status;
  return EVENT_TYPES[`${type}:${key}`] ?? null;
}

/** Mercado Pago payment_method_id for a card number (its BIN lookup, reduced to the brands it takes). */
export function paymentMethodIdOf(number: string): string | null {
  if (/^(636368|636297|438935|504175|451416|5067|4576|4011)/.test(number)) return 'elo';
  if (/^(606282|3841)/.test(number)) return 'hipercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'master';
  return null;
}

/** Mercado Pago's status_detail (and card-token cause codes) → failure_code, after its payment status_detail list. Codes not listed read by their outcome (workflows/lib/failure-codes.ts). */
export const FAILURE_CODES: FailureCodeTable = {
  cc_rejected_other_reason: 'do_not_honor',
  cc_rejected_call_for_authorize: 'do_not_honor',
  cc_rejected_insufficient_amount: 'insufficient_funds',
  cc_rejected_bad_filled_other: 'generic_decline',
  cc_rejected_bad_filled_security_code: 'incorrect_cvc',
  cc_rejected_card_disabled: 'restricted_card',
  cc_rejected_invalid_installments: 'card_not_supported',
  cc_rejected_max_attempts: 'card_velocity_exceeded',
  cc_rejected_card_error: 'processing_error',
  cc_rejected_bad_filled_card_number: 'invalid_number',
  // The date given is not the card's valid one: what an expired card is reported as.
  cc_rejected_bad_filled_date: 'expired_card',
  cc_rejected_blacklist: 'lost_or_stolen',
  cc_rejected_high_risk: 'fraudulent',
  cc_rejected_duplicated_payment: 'generic_decline',
  rejected_high_risk: 'fraudulent',
  rejected_by_regulations: 'restricted_card',
  rejected_by_bank: 'do_not_honor',
  rejected_insufficient_data: 'generic_decline',
  E301: 'invalid_number',
  '205': 'invalid_number',
  '208': 'incorrect_expiry',
  '209': 'incorrect_expiry',
  '325': 'incorrect_expiry',
  '326': 'incorrect_expiry',
  E302: 'incorrect_cvc',
  '224': 'incorrect_cvc',
};
