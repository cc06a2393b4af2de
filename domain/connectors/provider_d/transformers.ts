/**
 * provider_d (Authorize.net-like) responses → ProviderResult and webhooks → ours. The transaction's responseCode
 * (1 approved, 2 declined, 3 error, 4 held for review) decides first; declines and errors are classified by the
 * response reason code. Tables unit-tested row by row (test/unit/connectors-provider-d.test.ts).
 */
import type { FailureCodeTable } from '../../../workflows/lib/failure-codes';
import type { InboundWebhook, Outcome, ProviderResult } from '../connector';
import { field, result, serverFailure, type ProviderResponse } from '../http';

export const RESPONSE_CODES: Readonly<Record<string, Outcome>> = {
  '1': 'approved',
  '2': 'soft_decline',
  '3': 'processing_error',
  '4': 'pending',
};

/** Response reason code → outcome, overriding the responseCode default for declines (2) and errors (3). */
export const REASON_CODES: Readonly<Record<string, Outcome>> = {
  '2': 'soft_decline', // declined
  '3': 'soft_decline', // declined (referral)
  '4': 'hard_decline', // pick up card (lost/stolen)
  '5': 'processing_error', // a valid amount is required
  '6': 'hard_decline', // invalid card number
  '7': 'hard_decline', // invalid expiration date
  '8': 'hard_decline', // card expired
  // "A duplicate transaction has been submitted": the first one (same refId) may have been approved. Unknown, so the
  // lookup by refId decides; never a retry elsewhere, never a decline.
  '11': 'unknown',
  '16': 'processing_error', // transaction not found
  '17': 'soft_decline', // card type not accepted
  '19': 'processing_error',
  '20': 'processing_error',
  '21': 'processing_error',
  '22': 'processing_error',
  '23': 'processing_error',
  '27': 'soft_decline', // AVS mismatch
  '28': 'soft_decline', // card type not accepted by the merchant
  '37': 'hard_decline', // invalid card number
  '44': 'soft_decline', // card code declined
  '45': 'soft_decline', // AVS and card code
  '47': 'processing_error', // capture over the authorized amount
  '54': 'processing_error', // refund criteria not met
  '55': 'processing_error', // refunds exceed the debit
  '57': 'processing_error',
  '58': 'processing_error',
  '59': 'processing_error',
  '60': 'processing_error',
  '61': 'processing_error',
  '65': 'soft_decline', // card code mismatch
  '127': 'soft_decline', // AVS mismatch
  '141': 'soft_decline',
  '145': 'soft_decline',
  '165': 'soft_decline', // fraud filters (merchant-configurable)
  '250': 'hard_decline', // blocked by the fraud detection suite
  '251': 'hard_decline', // blocked by the fraud detection suite
  '252': 'pending',
  '253': 'pending', // held for review
  '254': 'hard_decline', // declined after review
  '310': 'processing_error', // already voided
  '311': 'processing_error', // already captured
};

/** Webhook eventType → ours (refund.created depends on the payload's responseCode, see webhookType). */
export const EVENT_TYPES: Readonly<Record<string, InboundWebhook['type']>> = {
  'net.authorize.payment.authcapture.created': 'payment.succeeded',
  'net.authorize.payment.capture.created': 'payment.succeeded',
  'net.authorize.payment.priorAuthCapture.created': 'payment.succeeded',
  'net.authorize.payment.fraud.declined': 'payment.failed',
  // A voided authorization never completes: for us the payment lapsed.
  'net.authorize.payment.void.created': 'payment.expired',
};

/** The API-level error (no transactionResponse): authentication, schema, unknown record… Our request was refused. */
function apiError(body: Record<string, unknown>): ProviderResult {
  const message = field.obj(field.list(field.obj(body.messages).message)[0]);
  return result('processing_error', {
    rawCode: field.str(message.code) ?? 'unknown',
    rawMessage: field.str(message.text),
  });
}

export function fromTransaction(response: ProviderResponse): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  const body = response.body;
  if (!body)
    return result('processing_error', { rawCode: `http_${response.status}`, rawMessage: 'Unreadable provider answer' });
  const tx = body.transactionResponse === undefined ? null : field.obj(body.transactionResponse);
  if (!tx || !field.str(tx.responseCode)) return apiError(body);
  const responseCode = field.str(tx.responseCode)!;
  const error = field.obj(field.list(tx.errors)[0]);
  const message = field.obj(field.list(tx.messages)[0]);
  const reason = field.str(error.errorCode) ?? field.str(message.code) ?? responseCode;
  const outcome =
    responseCode === '1' ? 'approved' : (REASON_CODES[reason] ?? RESPONSE_CODES[responseCode] ?? 'processing_error');
  const transId = field.str(tx.transId);
  return result(outcome, {
    providerReference: transId && transId !== '0' ? transId : null,
    rawCode: reason,
    rawMessage: field.str(error.errorText) ?? field.str(message.description),
    networkTransactionId: field.str(tx.networkTransId),
  });
}

/** getTransactionDetails → the masked card number needed by refundTransaction, or the failure. */
export function fromDetails(response: ProviderResponse): { cardNumber: string } | { failure: ProviderResult } {
  const failed = serverFailure(response);
  if (failed) return { failure: failed };
  const body = response.body ?? {};
  const cardNumber = field.str(field.obj(field.obj(field.obj(body.transaction).payment).creditCard).cardNumber);
  return cardNumber ? { cardNumber } : { failure: apiError(body) };
}

export function isOk(response: ProviderResponse): boolean {
  return response.status === 200 && field.obj(response.body?.messages).resultCode === 'Ok';
}

export function webhookType(eventType: string, payload: Record<string, unknown>): InboundWebhook['type'] | null {
  if (eventType === 'net.authorize.payment.refund.created')
    return String(payload.responseCode) === '1' ? 'refund.succeeded' : 'refund.failed';
  return EVENT_TYPES[eventType] ?? null;
}

/** Authorize.net's response reason code → failure_code, after its response reason codes list. Codes not listed read by their outcome (workflows/lib/failure-codes.ts). */
export const FAILURE_CODES: FailureCodeTable = {
  '2': 'do_not_honor',
  // Reason codes 2–4 are all "This transaction has been declined"; 3 is the one reported for a lack of funds.
  '3': 'insufficient_funds',
  '4': 'lost_or_stolen',
  '5': 'invalid_amount',
  '6': 'invalid_number',
  '7': 'incorrect_expiry',
  '8': 'expired_card',
  '17': 'card_not_supported',
  '27': 'do_not_honor',
  '28': 'card_not_supported',
  '37': 'invalid_number',
  '44': 'incorrect_cvc',
  '45': 'incorrect_cvc',
  '65': 'incorrect_cvc',
  '127': 'do_not_honor',
  '141': 'fraudulent',
  '145': 'fraudulent',
  '165': 'fraudulent',
  '250': 'fraudulent',
  '251': 'fraudulent',
  '254': 'fraudulent',
};
