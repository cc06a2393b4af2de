/**
 * provider_c (Mercado Pago-like) resource shapes and notifications: payment and refund objects as the API returns
 * them, and the signed notification for a neutral sandbox event.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { DeclineReason } from '../cards';
import { minorToDecimal } from '../money';
import type { Payment, Refund, SandboxEvent } from '../store';
import type { RenderedWebhook } from './common';

const DETAILS: Record<DeclineReason, string> = {
  do_not_honor: 'cc_rejected_other_reason',
  insufficient_funds: 'cc_rejected_insufficient_amount',
  stolen_card: 'cc_rejected_blacklist',
  lost_card: 'cc_rejected_blacklist',
  expired_card: 'cc_rejected_bad_filled_date',
  invalid_number: 'cc_rejected_bad_filled_card_number',
  fraud: 'cc_rejected_high_risk',
  authentication_required: 'cc_rejected_3ds_mandatory',
  authentication_failed: 'cc_rejected_3ds_challenge',
};

const STATES: Record<Payment['state'], [string, string]> = {
  authorized: ['authorized', 'pending_capture'],
  captured: ['approved', 'accredited'],
  verified: ['approved', 'accredited'],
  voided: ['cancelled', 'by_collector'],
  pending: ['pending', 'pending_waiting_transfer'],
  requires_action: ['pending', 'pending_challenge'],
  expired: ['cancelled', 'expired'],
  declined: ['rejected', 'cc_rejected_other_reason'],
};

const decimal = (amount: number, currency: string) => Number(minorToDecimal(amount, currency));

function methodIds(payment: Payment): { payment_method_id: string | null; payment_type_id: string } {
  if (payment.method === 'pix') return { payment_method_id: 'pix', payment_type_id: 'bank_transfer' };
  if (payment.method === 'wallet') return { payment_method_id: 'account_money', payment_type_id: 'account_money' };
  return {
    payment_method_id: payment.cardBrand === 'mastercard' ? 'master' : payment.cardBrand,
    payment_type_id: 'credit_card',
  };
}

export function paymentObject(payment: Payment): Record<string, unknown> {
  const [status, detail] = payment.declineReason ? ['rejected', DETAILS[payment.declineReason]] : STATES[payment.state];
  const refunded = payment.refundedAmount > 0 && payment.refundedAmount === payment.capturedAmount;
  const instructions = payment.instructions;
  return {
    id: Number(payment.id),
    status: refunded ? 'refunded' : status,
    status_detail: refunded ? 'refunded' : detail,
    external_reference: payment.reference,
    transaction_amount: decimal(payment.amount, payment.currency),
    transaction_amount_refunded: decimal(payment.refundedAmount, payment.currency),
    currency_id: payment.currency,
    captured: payment.state === 'captured',
    ...methodIds(payment),
    card: payment.cardLast4 ? { last_four_digits: payment.cardLast4 } : {},
    network_transaction_id: payment.networkTransactionId,
    point_of_interaction: instructions
      ? {
          type: 'PIX',
          transaction_data: {
            qr_code: instructions.code,
            qr_code_base64: Buffer.from(instructions.code).toString('base64'),
            ticket_url: instructions.url,
          },
        }
      : null,
    date_of_expiration: instructions?.expiresAt ?? null,
    three_ds_info: threeDsInfo(payment),
    date_created: payment.createdAt,
    live_mode: false,
  };
}

/**
 * Mercado Pago's 3-D Secure challenge: `three_ds_info` carries the page the buyer completes (external_resource_url)
 * and the challenge request (creq), and stays on the payment once it is decided. A payment not challenged has none.
 */
function threeDsInfo(payment: Payment): Record<string, unknown> | null {
  const url = payment.threeDs?.challengeUrl;
  if (!url) return null;
  const creq = Buffer.from(
    JSON.stringify({ threeDSServerTransID: payment.id, messageType: 'CReq', messageVersion: '2.2.0' }),
  ).toString('base64url');
  return { external_resource_url: url, creq };
}

export function refundObject(record: Refund): Record<string, unknown> {
  return {
    id: Number(record.id),
    payment_id: Number(record.paymentId),
    amount: decimal(record.amount, record.currency),
    status: record.state === 'failed' ? 'rejected' : record.state === 'pending' ? 'in_process' : 'approved',
    refund_mode: 'standard',
    date_created: record.createdAt,
    external_reference: record.reference,
  };
}

/** A stable number from a string id (event ids, user ids). */
export function numberFrom(seed: string, hexDigits = 12): number {
  return Number(BigInt(`0x${createHash('sha256').update(seed).digest('hex').slice(0, hexDigits)}`));
}

/** The notification body: type payment | refund | chargebacks, with the resource's state inlined in `data`. */
export function renderWebhook(
  event: SandboxEvent,
  payment: Payment | null,
  refund: Refund | null,
  secret: string,
): RenderedWebhook {
  let type = 'payment';
  let action = 'payment.updated';
  let data: Record<string, unknown> = { ...(payment ? paymentObject(payment) : {}), id: event.paymentId };
  if (refund) {
    [type, action, data] = ['refund', 'refund.updated', { ...refundObject(refund), id: refund.id }];
  } else if (event.type.startsWith('dispute.')) {
    const verb = event.type === 'dispute.opened' ? 'created' : event.type === 'dispute.updated' ? 'updated' : 'closed';
    [type, action] = ['chargebacks', `chargeback.${verb}`];
    data = {
      id: String(numberFrom(`chargeback:${event.paymentId}`, 10)),
      payment_id: Number(event.paymentId),
      status: event.disputeStatus,
      amount: decimal(event.amount, event.currency),
      external_reference: event.reference,
    };
  }
  const body = JSON.stringify({
    id: numberFrom(event.id),
    live_mode: false,
    type,
    action,
    api_version: 'v1',
    date_created: event.createdAt,
    user_id: event.account,
    data,
  });
  return { headers: signatureHeaders(String(data.id), body, secret), body };
}

/**
 * Mercado Pago's x-signature: ts (seconds) and v1 = hex HMAC-SHA256 of `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`.
 * Mercado Pago sends only data.id and expects a GET; this sandbox inlines the resource's state, so it also signs the
 * body: `body-sha256:<hex>;` ends the manifest (otherwise the inlined status could be forged).
 */
export function signatureHeaders(
  dataId: string,
  body: string,
  secret: string,
  ts = Math.floor(Date.now() / 1000),
  requestId = randomUUID(),
): Record<string, string> {
  const digest = createHash('sha256').update(body).digest('hex');
  const manifest = `id:${dataId.toLowerCase()};request-id:${requestId};ts:${ts};body-sha256:${digest};`;
  const v1 = createHmac('sha256', secret).update(manifest).digest('hex');
  return { 'x-signature': `ts=${ts},v1=${v1}`, 'x-request-id': requestId };
}
