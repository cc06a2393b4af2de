/**
 * provider_b (Adyen-like) responses → ProviderResult, notifications → ours. resultCode decides first (a
 * RedirectShopper the buyer can follow is a 3-D Secure challenge, pending); a Refused payment is classified by its
 * refusalReasonCode. Tables unit-tested row by row (test/unit/connectors-provider-b.test.ts).
 */
import type { FailureCodeTable } from '../../../workflows/lib/failure-codes';
import type { InboundWebhook, Outcome, ProviderResult } from '../connector';
import { field, keyStillInUse, result, safeMessage, serverFailure, type ProviderResponse } from '../http';
import { challengeUrlOf, threeDsOf } from './three-ds';

export const RESULT_CODES: Readonly<Record<string, Outcome>> = {
  Authorised: 'approved',
  Pending: 'pending',
  Received: 'pending',
  PresentToShopper: 'pending',
  Error: 'processing_error',
  Cancelled: 'soft_decline',
  RedirectShopper: 'soft_decline',
  IdentifyShopper: 'soft_decline',
  ChallengeShopper: 'soft_decline',
  AuthenticationNotRequired: 'processing_error',
  AuthenticationFinished: 'processing_error',
};

/** refusalReasonCode → outcome (Adyen's documented list). Unknown codes are soft. */
export const REFUSAL_REASONS: Readonly<Record<string, Outcome>> = {
  '2': 'soft_decline', // Refused
  '3': 'soft_decline', // Referral
  '4': 'processing_error', // Acquirer Error
  '5': 'hard_decline', // Blocked Card (lost/stolen)
  '6': 'hard_decline', // Expired Card
  '7': 'soft_decline', // Invalid Amount
  '8': 'hard_decline', // Invalid Card Number
  '9': 'soft_decline', // Issuer Unavailable
  '10': 'soft_decline', // Not supported
  '11': 'soft_decline', // 3D Not Authenticated
  '12': 'soft_decline', // Not enough balance
  '14': 'hard_decline', // Acquirer Fraud
  '15': 'soft_decline', // Cancelled
  '16': 'soft_decline', // Shopper Cancelled
  '17': 'soft_decline', // Invalid Pin
  '18': 'hard_decline', // Pin tries exceeded
  '20': 'hard_decline', // FRAUD
  '21': 'processing_error', // Not Submitted
  '22': 'hard_decline', // FRAUD-CANCELLED
  '23': 'hard_decline', // Transaction Not Permitted
  '24': 'soft_decline', // CVC Declined
  '25': 'hard_decline', // Restricted Card
  '26': 'hard_decline', // Revocation Of Auth
  '27': 'soft_decline', // Declined Non Generic
  '28': 'soft_decline', // Withdrawal amount exceeded
  '29': 'soft_decline', // Withdrawal count exceeded
  '31': 'hard_decline', // Issuer Suspected Fraud
  '32': 'soft_decline', // AVS Declined
  '33': 'soft_decline', // Card requires online pin
  '34': 'hard_decline', // No checking account available on Card
  '35': 'hard_decline', // No savings account available on Card
  '36': 'soft_decline', // Mobile pin required
  '38': 'soft_decline', // Authentication required
  '42': 'soft_decline', // 3DS Authentication Error
};

/** Modification status ("received" = accepted; captures and cancels are treated as done, refunds as pending). */
export const MODIFICATION_OUTCOMES: Readonly<Record<'capture' | 'void' | 'refund', Outcome>> = {
  capture: 'approved',
  void: 'approved',
  refund: 'pending',
};

/** `${eventCode}:${success}` (or `${eventCode}:*` when success does not matter) → ours. */
export const EVENT_CODES: Readonly<Record<string, InboundWebhook['type']>> = {
  'AUTHORISATION:true': 'payment.succeeded',
  'AUTHORISATION:false': 'payment.failed',
  'OFFER_CLOSED:*': 'payment.expired',
  'REFUND:true': 'refund.succeeded',
  'REFUND:false': 'refund.failed',
  'REFUND_FAILED:*': 'refund.failed',
  'REFUNDED_REVERSED:*': 'refund.failed',
  'CAPTURE:true': 'capture.succeeded',
  'CAPTURE:false': 'capture.failed',
  'CAPTURE_FAILED:*': 'capture.failed',
  'CANCELLATION:true': 'void.succeeded',
  'CANCELLATION:false': 'void.failed',
  'NOTIFICATION_OF_CHARGEBACK:*': 'dispute.opened',
  'REQUEST_FOR_INFORMATION:*': 'dispute.opened',
  'CHARGEBACK:*': 'dispute.updated',
  'PREARBITRATION_WON:*': 'dispute.closed',
  'PREARBITRATION_LOST:*': 'dispute.closed',
  'CHARGEBACK_REVERSED:*': 'dispute.closed',
  'SECOND_CHARGEBACK:*': 'dispute.closed',
};

/**
 * Non-2xx answers: credentials or validation, our request refused: retryable elsewhere. Except 704 ("request
 * already processed or in progress" under the idempotency key): unknown.
 */
function requestError(response: ProviderResponse): ProviderResult {
  const body = response.body ?? {};
  if (field.str(body.errorCode) === '704') return keyStillInUse('704');
  return result('processing_error', {
    rawCode: field.str(body.errorCode) ?? `http_${response.status}`,
    rawMessage: safeMessage(response.status, field.str(body.message)),
  });
}

/** A /payments answer: decided, pending (pix, boleto, a 3-D Secure challenge), or refused. */
export const fromPayment = (response: ProviderResponse): ProviderResult => paymentOf(response, false);

/** A /payments/details answer: the payment once the buyer's 3-D Secure challenge is over. */
export const fromDetails = (response: ProviderResponse): ProviderResult => paymentOf(response, true);

function paymentOf(response: ProviderResponse, challenged: boolean): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  if (response.status !== 200 || !response.body) return requestError(response);
  const body = response.body;
  const resultCode = field.str(body.resultCode) ?? '';
  const additional = field.obj(body.additionalData);
  const common = {
    providerReference: field.str(body.pspReference),
    networkTransactionId: field.str(additional.networkTxReference),
    threeDs: threeDsOf(additional, challenged),
  };
  const challengeUrl = challengeUrlOf(body);
  if (challengeUrl) return result('pending', { ...common, rawCode: resultCode, challengeUrl });
  if (resultCode === 'Refused') {
    const code = field.str(body.refusalReasonCode) ?? '';
    const raw = field.str(additional.refusalReasonRaw);
    return result(REFUSAL_REASONS[code] ?? 'soft_decline', {
      ...common,
      rawCode: code || 'Refused',
      rawMessage: [field.str(body.refusalReason), raw && `(${raw})`].filter(Boolean).join(' ') || null,
    });
  }
  return result(RESULT_CODES[resultCode] ?? 'processing_error', {
    ...common,
    rawCode: resultCode,
    paymentInstructions: instructionsOf(field.obj(body.action)),
  });
}

/** pix qrCode / boleto voucher action → our payment_instructions shape (never card data). */
export function instructionsOf(action: Record<string, unknown>): Record<string, unknown> | null {
  if (action.type === 'qrCode' && action.paymentMethodType === 'pix') {
    return {
      type: 'pix',
      qr_code_text: field.str(action.qrCodeData),
      qr_code_url: field.str(action.url),
      expires_at: field.str(action.expiresAt),
    };
  }
  if (action.type === 'voucher') {
    return {
      type: 'boleto',
      barcode: field.str(action.reference),
      boleto_url: field.str(action.downloadUrl),
      expires_at: field.str(action.expiresAt),
    };
  }
  return null;
}

export function fromModification(response: ProviderResponse, operation: 'capture' | 'void' | 'refund'): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  if (response.status !== 201 && response.status !== 200) return requestError(response);
  const body = response.body ?? {};
  const status = field.str(body.status) ?? '';
  return result(status === 'received' ? MODIFICATION_OUTCOMES[operation] : 'processing_error', {
    providerReference: operation === 'refund' ? field.str(body.pspReference) : field.str(body.paymentPspReference),
    rawCode: status,
  });
}

export function webhookType(eventCode: string, success: string): InboundWebhook['type'] | null {
  return EVENT_CODES[`${eventCode}:${success}`] ?? EVENT_CODES[`${eventCode}:*`] ?? null;
}

/** Adyen's refusalReasonCode (or resultCode when there is none) → failure_code, after Adyen's refusal reasons list. Codes not listed read by their outcome (workflows/lib/failure-codes.ts). */
export const FAILURE_CODES: FailureCodeTable = {
  Refused: 'do_not_honor',
  RedirectShopper: 'authentication_required',
  IdentifyShopper: 'authentication_required',
  ChallengeShopper: 'authentication_required',
  Error: 'processing_error',
  '2': 'do_not_honor',
  '3': 'do_not_honor',
  '4': 'processing_error',
  '5': 'lost_or_stolen',
  '6': 'expired_card',
  '7': 'invalid_amount',
  '8': 'invalid_number',
  '9': 'try_again_later',
  '10': 'card_not_supported',
  '11': 'authentication_required',
  '12': 'insufficient_funds',
  '14': 'fraudulent',
  '15': 'generic_decline',
  '16': 'generic_decline',
  '17': 'do_not_honor',
  '18': 'do_not_honor',
  '20': 'fraudulent',
  '21': 'processing_error',
  '22': 'fraudulent',
  '23': 'restricted_card',
  '24': 'incorrect_cvc',
  '25': 'restricted_card',
  '26': 'do_not_honor',
  '27': 'do_not_honor',
  '28': 'card_velocity_exceeded',
  '29': 'card_velocity_exceeded',
  '31': 'fraudulent',
  '32': 'do_not_honor',
  '33': 'do_not_honor',
  '34': 'restricted_card',
  '35': 'restricted_card',
  '36': 'do_not_honor',
  '38': 'authentication_required',
  '42': 'authentication_required',
};
