/**
 * provider_b's notifications as Adyen sends them: one NotificationRequestItem per request, HTTP Basic with the
 * endpoint's {username, password} secret, and (when the secret carries an `hmac_key`) additionalData.hmacSignature.
 * A refused AUTHORISATION names the refusal reason ("3D Not Authenticated", "Refused") in `reason`.
 */
import { createHmac } from 'node:crypto';
import { read } from '../http';
import type { Payment, Refund, SandboxEvent, WebhookEndpoint } from '../store';
import type { RenderedWebhook } from './common';

const EVENT_CODES = {
  'payment.succeeded': ['AUTHORISATION', 'true'],
  'payment.failed': ['AUTHORISATION', 'false'],
  'payment.expired': ['OFFER_CLOSED', 'true'],
  'refund.succeeded': ['REFUND', 'true'],
  'refund.failed': ['REFUND', 'false'],
  'dispute.opened': ['NOTIFICATION_OF_CHARGEBACK', 'true'],
  'dispute.updated': ['CHARGEBACK', 'true'],
} as const;

/** The notification of a sandbox event; `refusalReason` names a refused payment's reason. */
export function notificationOf(
  event: SandboxEvent,
  payment: Payment | null,
  refundRecord: Refund | null,
  endpoint: WebhookEndpoint,
  refusalReason: string,
): RenderedWebhook {
  const secret = parseSecret(endpoint.secret);
  const [eventCode, success] =
    event.type === 'dispute.closed'
      ? [event.disputeStatus === 'won' ? 'CHARGEBACK_REVERSED' : 'SECOND_CHARGEBACK', 'true']
      : EVENT_CODES[event.type];
  const item: Record<string, unknown> = {
    amount: { value: refundRecord?.amount ?? event.amount, currency: event.currency },
    eventCode,
    eventDate: event.createdAt,
    merchantAccountCode: event.account,
    merchantReference: event.reference ?? '',
    pspReference: refundRecord?.id ?? event.paymentId,
    ...(refundRecord ? { originalReference: event.paymentId } : {}),
    paymentMethod:
      payment?.method === 'card'
        ? payment.cardBrand
        : payment?.method === 'boleto'
          ? 'boletobancario'
          : (payment?.method ?? ''),
    reason: success === 'false' ? refusalReason : '',
    success,
  };
  if (secret?.hmac_key) item.additionalData = { hmacSignature: notificationHmac(item, secret.hmac_key) };
  const body = JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] });
  const headers: Record<string, string> = {};
  if (secret)
    headers.authorization = `Basic ${Buffer.from(`${secret.username}:${secret.password}`).toString('base64')}`;
  return { headers, body };
}

function parseSecret(raw: string): { username: string; password: string; hmac_key?: string } | null {
  try {
    const value = JSON.parse(raw) as Record<string, unknown>;
    if (typeof value.username !== 'string' || typeof value.password !== 'string') return null;
    return {
      username: value.username,
      password: value.password,
      hmac_key: typeof value.hmac_key === 'string' ? value.hmac_key : undefined,
    };
  } catch {
    return null;
  }
}

/** Adyen's notification HMAC: base64 HMAC-SHA256 of the colon-joined fields, keyed by the hex-decoded HMAC key. */
export function notificationHmac(item: Record<string, unknown>, hexKey: string): string {
  const amount = read.obj(item.amount);
  const payload = [
    item.pspReference,
    item.originalReference,
    item.merchantAccountCode,
    item.merchantReference,
    amount.value,
    amount.currency,
    item.eventCode,
    item.success,
  ]
    .map((part) => (part === undefined || part === null ? '' : String(part as string | number | boolean)))
    .join(':');
  return createHmac('sha256', Buffer.from(hexKey, 'hex')).update(payload).digest('base64');
}
