/**
 * checkout (Checkout.com-like) responses → ProviderResult and webhooks → ours. A declined payment is classified by
 * its response_code: the table first, then the provider's own classes (2xxxx soft, 3xxxx hard, 4xxxx risk → hard).
 * Tables unit-tested row by row (test/unit/connectors-checkout.test.ts).
 */
import type { FailureCodeTable } from '../../../workflows/lib/failure-codes';
import type { InboundWebhook, Outcome, ProviderResult } from '../connector';
import type { ThreeDsStatus } from '../../../workflows/lib/three-ds';
import { field, keyStillInUse, result, serverFailure, type ProviderResponse } from '../http';

export const PAYMENT_STATUSES: Readonly<Record<string, Outcome>> = {
  Authorized: 'approved',
  Captured: 'approved',
  'Card Verified': 'approved',
  'Partially Captured': 'approved',
  Paid: 'approved',
  Pending: 'pending',
  Declined: 'soft_decline',
  Canceled: 'soft_decline',
  Expired: 'soft_decline',
};

/** Payment statuses that end a pending payment without a decline: it was not paid in time, or was called off. */
const LAPSED_STATUSES = new Set(['Expired', 'Canceled']);

/** response_code → outcome where it differs from (or sharpens) its class. */
export const RESPONSE_CODES: Readonly<Record<string, Outcome>> = {
  '10000': 'approved',
  '10008': 'approved',
  '10100': 'approved',
  '20001': 'soft_decline', // refer to card issuer
  '20005': 'soft_decline', // do not honour
  '20012': 'soft_decline', // invalid transaction
  '20014': 'hard_decline', // invalid card number
  '20046': 'soft_decline', // bank decline
  '20051': 'soft_decline', // insufficient funds
  '20054': 'hard_decline', // expired card
  '20055': 'soft_decline', // incorrect PIN
  '20057': 'hard_decline', // transaction not permitted to cardholder
  '20059': 'hard_decline', // suspected fraud
  '20061': 'soft_decline', // exceeds withdrawal limit
  '20062': 'hard_decline', // restricted card
  '20065': 'soft_decline', // exceeds withdrawal frequency
  '20091': 'processing_error', // issuer unavailable
  '20096': 'processing_error', // system malfunction
  '20150': 'soft_decline', // card not 3-D Secure enabled
  '20151': 'hard_decline', // cardholder failed 3-D Secure: another connector would only challenge them again
  '20154': 'soft_decline', // 3-D Secure required: a connector that runs it may authenticate
  '30004': 'hard_decline', // pick up card (no fraud)
  '30007': 'hard_decline', // pick up card, special conditions
  '30041': 'hard_decline', // lost card, pick up
  '30043': 'hard_decline', // stolen card, pick up
  '40101': 'hard_decline', // risk blocked
  '40201': 'hard_decline', // gateway reject: card number blacklisted
};

/** Checkout.com's documented classes for codes not in the table. */
export function responseCodeOutcome(code: string): Outcome {
  if (RESPONSE_CODES[code]) return RESPONSE_CODES[code];
  if (/^1\d{4}$/.test(code)) return 'approved';
  if (/^2\d{4}$/.test(code)) return 'soft_decline';
  if (/^[34]\d{4}$/.test(code)) return 'hard_decline';
  return 'processing_error';
}

/** Accepted (202) actions: captures and voids count as done, refunds complete by webhook. */
export const ACTION_OUTCOMES: Readonly<Record<'capture' | 'void' | 'refund', Outcome>> = {
  capture: 'approved',
  void: 'approved',
  refund: 'pending',
};

export const EVENT_TYPES: Readonly<Record<string, InboundWebhook['type']>> = {
  payment_captured: 'payment.succeeded',
  payment_paid: 'payment.succeeded',
  payment_declined: 'payment.failed',
  payment_capture_declined: 'payment.failed',
  payment_canceled: 'payment.failed',
  payment_expired: 'payment.expired',
  payment_refunded: 'refund.succeeded',
  payment_refund_declined: 'refund.failed',
  dispute_received: 'dispute.opened',
  dispute_evidence_required: 'dispute.updated',
  dispute_evidence_submitted: 'dispute.updated',
  dispute_won: 'dispute.closed',
  dispute_lost: 'dispute.closed',
  dispute_accepted: 'dispute.closed',
  dispute_canceled: 'dispute.closed',
};

/**
 * 401 (bodiless), 403, 404, 422: our request or credentials refused. 409 is the Cko-Idempotency-Key conflict (the
 * key was used already, maybe still processing): unknown.
 */
function requestError(response: ProviderResponse): ProviderResult {
  const body = response.body ?? {};
  if (response.status === 409) return keyStillInUse(field.str(body.error_type) ?? 'http_409');
  const code = field.str(field.list(body.error_codes)[0]) ?? field.str(body.error_type) ?? `http_${response.status}`;
  return result('processing_error', { rawCode: code, rawMessage: field.str(body.error_type) });
}

export function fromPayment(response: ProviderResponse): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  if ((response.status !== 201 && response.status !== 202 && response.status !== 200) || !response.body)
    return requestError(response);
  const body = response.body;
  const status = field.str(body.status) ?? '';
  // The issuer challenges the buyer: a Pending payment links the page to redirect them to.
  const challengeUrl = status === 'Pending' ? field.str(field.obj(field.obj(body._links).redirect).href) : null;
  if (challengeUrl) return result('pending', { providerReference: field.str(body.id), rawCode: status, challengeUrl });
  const code = field.str(body.response_code);
  const outcome =
    status === 'Declined' && code ? responseCodeOutcome(code) : (PAYMENT_STATUSES[status] ?? 'processing_error');
  return result(outcome, {
    providerReference: field.str(body.id),
    rawCode: code ?? status,
    // A lapsed payment (Expired, Canceled) is named by its status, which settlement reads as an expiry; its
    // response code is the last action's and says nothing about the lapse.
    rawMessage: LAPSED_STATUSES.has(status) ? status : field.str(body.response_summary),
    networkTransactionId: field.str(body.scheme_id),
    threeDs: threeDsOf(field.obj(body['3ds']), field.str(body.eci)),
  });
}

/** The 3-D Secure authentication_response (the EMV transStatus) → ours; liability shifts on Y and A. */
const AUTHENTICATION_RESPONSES: Readonly<Record<string, ThreeDsStatus>> = {
  Y: 'authenticated',
  A: 'frictionless',
  N: 'failed',
  R: 'failed',
  U: 'unsupported',
};

/** The payment's `3ds` object; null when no authentication ran (or it has no answer yet). */
export function threeDsOf(details: Record<string, unknown>, paymentEci: string | null): ProviderResult['threeDs'] {
  const response = field.str(details.authentication_response);
  if (!response) return null;
  const status = AUTHENTICATION_RESPONSES[response] ?? 'failed';
  return {
    status: status === 'authenticated' && details.challenged === false ? 'frictionless' : status,
    version: field.str(details.version),
    eci: field.str(details.eci) ?? paymentEci,
    liability_shift: response === 'Y' || response === 'A',
  };
}

export function fromAction(
  response: ProviderResponse,
  operation: 'capture' | 'void' | 'refund',
  paymentId: string,
): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  if (response.status !== 202) return requestError(response);
  // A refund is known by its action id (what the refund webhook names); captures and voids by the payment.
  const actionId = field.str(response.body?.action_id);
  return result(ACTION_OUTCOMES[operation], {
    providerReference: operation === 'refund' ? actionId : paymentId,
    rawCode: 'accepted',
  });
}

export function webhookProviderReference(type: InboundWebhook['type'], data: Record<string, unknown>): string | null {
  if (type.startsWith('refund.')) return field.str(data.action_id);
  if (type.startsWith('dispute.')) return field.str(data.payment_id);
  return field.str(data.id);
}

/** Checkout.com's response_code → failure_code, after its response codes list. Codes not listed read by their outcome (workflows/lib/failure-codes.ts). */
export const FAILURE_CODES: FailureCodeTable = {
  '20001': 'do_not_honor',
  '20005': 'do_not_honor',
  '20012': 'generic_decline',
  '20014': 'invalid_number',
  '20046': 'do_not_honor',
  '20051': 'insufficient_funds',
  '20054': 'expired_card',
  '20055': 'do_not_honor',
  '20057': 'restricted_card',
  '20059': 'fraudulent',
  '20061': 'card_velocity_exceeded',
  '20062': 'restricted_card',
  '20065': 'card_velocity_exceeded',
  '20091': 'try_again_later',
  '20096': 'processing_error',
  '20150': 'authentication_required',
  '20154': 'authentication_required',
  '30004': 'lost_or_stolen',
  '30007': 'lost_or_stolen',
  '30041': 'lost_or_stolen',
  '30043': 'lost_or_stolen',
  '40101': 'fraudulent',
  '40201': 'fraudulent',
};
