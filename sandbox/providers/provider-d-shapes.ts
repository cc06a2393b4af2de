/**
 * provider_d's Authorize.net answers: every reply is HTTP 200 with a BOM-prefixed JSON body (an outage is a 503 HTML
 * page), a transaction's responseCode and reason code per decline, the transactionResponse of a createTransaction,
 * and its webhooks signed `X-ANET-Signature: sha512=<HMAC-SHA512 hex>`.
 */
import { createHash, createHmac } from 'node:crypto';
import type { DeclineReason } from '../cards';
import type { Reply } from '../http';
import { minorToDecimal } from '../money';
import { numericId, type Payment } from '../store';
import type { ProviderModule } from './common';

/** Decline → [responseCode, reasonCode, text]. Invalid data is responseCode 3 (error), declines 2. */
export const DECLINES: Record<DeclineReason, [string, string, string]> = {
  do_not_honor: ['2', '2', 'This transaction has been declined.'],
  insufficient_funds: ['2', '3', 'This transaction has been declined.'],
  stolen_card: ['2', '4', 'This transaction has been declined.'],
  lost_card: ['2', '4', 'This transaction has been declined.'],
  expired_card: ['3', '8', 'The credit card has expired.'],
  invalid_number: ['3', '6', 'The credit card number is invalid.'],
  fraud: ['2', '250', 'This transaction has been submitted from a blocked IP address.'],
  // Authorize.net runs no 3-D Secure: an issuer that demands it declines like any other.
  authentication_required: ['2', '2', 'This transaction has been declined.'],
  authentication_failed: ['2', '2', 'This transaction has been declined.'],
};

const BOM = '\uFEFF';
/** Authorize.net answers 200 with a BOM-prefixed JSON body for every outcome. */
export const reply = (body: Record<string, unknown>): Reply => ({
  status: 200,
  body: BOM + JSON.stringify(body),
  headers: { 'content-type': 'application/json; charset=utf-8' },
});
export const ok = { resultCode: 'Ok', message: [{ code: 'I00001', text: 'Successful.' }] };
export const apiError = (code: string, text: string, refId: string | null = null) =>
  reply({ refId, messages: { resultCode: 'Error', message: [{ code, text }] } });
export const serverError = (): Reply => ({
  status: 503,
  body: '<html><body><h1>503 Service Unavailable</h1></body></html>',
  headers: { 'content-type': 'text/html' },
});

export function transactionReply(
  refId: string | null,
  fields: {
    responseCode: string;
    reasonCode: string;
    text: string;
    transId: string;
    refTransId?: string;
    payment?: Payment;
  },
): Reply {
  const approved = fields.responseCode === '1';
  const { payment } = fields;
  return reply({
    transactionResponse: {
      responseCode: fields.responseCode,
      authCode: approved ? numericId(6) : '',
      avsResultCode: 'Y',
      cvvResultCode: approved ? 'M' : '',
      transId: fields.transId,
      refTransID: fields.refTransId ?? '',
      transHash: '',
      testRequest: '0',
      accountNumber: payment?.cardLast4 ? `XXXX${payment.cardLast4}` : '',
      accountType: payment?.cardBrand ? cardType(payment.cardBrand) : '',
      ...(approved
        ? { messages: [{ code: fields.reasonCode, description: fields.text }] }
        : { errors: [{ errorCode: fields.reasonCode, errorText: fields.text }] }),
      ...(payment?.networkTransactionId && approved ? { networkTransId: payment.networkTransactionId } : {}),
      ...(payment?.reference ? { userFields: [{ name: 'reference', value: payment.reference }] } : {}),
    },
    refId,
    messages: approved
      ? ok
      : { resultCode: 'Error', message: [{ code: 'E00027', text: 'The transaction was unsuccessful.' }] },
  });
}

/** A notification of a sandbox event, as Authorize.net posts it. */
export const webhook: ProviderModule['webhook'] = (event, payment, refundRecord, endpoint) => {
  const failed = event.type.endsWith('failed');
  const eventType = refundRecord
    ? 'net.authorize.payment.refund.created'
    : event.type === 'payment.succeeded'
      ? 'net.authorize.payment.authcapture.created'
      : event.type === 'payment.failed'
        ? 'net.authorize.payment.fraud.declined'
        : 'net.authorize.payment.void.created';
  const body = JSON.stringify({
    notificationId: uuidFrom(event.id),
    eventType,
    eventDate: event.createdAt,
    webhookId: endpoint.id,
    payload: {
      responseCode: failed ? 2 : 1,
      authCode: failed ? '' : numericId(6),
      avsResponse: 'Y',
      authAmount: Number(minorToDecimal(refundRecord?.amount ?? event.amount, event.currency)),
      entityName: 'transaction',
      id: refundRecord?.id ?? event.paymentId,
      merchantReferenceId: payment?.reference ?? event.reference,
    },
  });
  return { headers: { 'x-anet-signature': anetSignature(body, endpoint.secret) }, body };
};

/** sha512= followed by the uppercase hex HMAC-SHA512 of the body, keyed by the signature key text. */
export function anetSignature(body: string, signatureKey: string): string {
  return `sha512=${createHmac('sha512', signatureKey).update(body).digest('hex').toUpperCase()}`;
}

export function cardType(brand: string): string {
  return (
    {
      visa: 'Visa',
      mastercard: 'MasterCard',
      amex: 'AmericanExpress',
      discover: 'Discover',
      diners: 'DinersClub',
      jcb: 'JCB',
    }[brand] ?? 'Other'
  );
}

/** A stable UUID-shaped id per event, so a redelivery carries the same notificationId. */
function uuidFrom(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
