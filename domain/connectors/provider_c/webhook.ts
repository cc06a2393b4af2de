/**
 * provider_c (Mercado Pago-like) notifications: `x-signature: ts=<seconds>,v1=<hex>` where v1 is HMAC-SHA256 (the
 * connector's webhook secret) of `id:<data.id>;request-id:<x-request-id>;ts:<ts>;body-sha256:<hex of the body>;`;
 * ts must be within ±5 minutes. Mercado Pago itself signs only the id and sends nothing else worth trusting (you GET
 * the payment); this provider inlines the resource's state in `data`, so the body digest is part of the manifest.
 */
import { createHash, createHmac } from 'node:crypto';
import { InvalidWebhookError, wonOrLost, type InboundWebhook, UnhandledWebhookEventError } from '../connector';
import { field } from '../http';
import { fromDecimal } from '../money';
import { checkTimestamp, headerOf, parseJsonBody, requireSecret, safeEqual, type WebhookRequest } from '../signatures';
import { webhookType } from './transformers';

export function verifySignature(
  headers: Record<string, string | undefined>,
  dataId: string,
  rawBody: string,
  secret: string,
  now = Date.now(),
): void {
  const parts = Object.fromEntries(
    (headerOf(headers, 'x-signature') ?? '').split(',').map((part) => {
      const [key, ...value] = part.trim().split('=');
      return [key, value.join('=')];
    }),
  );
  const requestId = headerOf(headers, 'x-request-id') ?? '';
  if (!parts.ts || !parts.v1 || !/^\d+$/.test(parts.ts))
    throw new InvalidWebhookError('Missing or malformed x-signature');
  const ts = Number(parts.ts);
  checkTimestamp(ts > 1e12 ? ts / 1000 : ts, now); // seconds, or milliseconds as some integrations send
  const digest = createHash('sha256').update(rawBody).digest('hex');
  const manifest = `id:${dataId.toLowerCase()};request-id:${requestId};ts:${parts.ts};body-sha256:${digest};`;
  const expected = createHmac('sha256', secret).update(manifest).digest('hex');
  if (!safeEqual(parts.v1.toLowerCase(), expected)) throw new InvalidWebhookError('Webhook signature mismatch');
}

export function parseWebhook(request: WebhookRequest): InboundWebhook {
  const secret = requireSecret(request.webhookSecret);
  const body = parseJsonBody(request.rawBody);
  const data = field.obj(body.data);
  const dataId = field.str(data.id);
  if (!dataId) throw new InvalidWebhookError('Notification without data.id');
  verifySignature(request.headers, dataId, request.rawBody, secret);
  const type = webhookType(field.str(body.type) ?? '', field.str(body.action) ?? '', data);
  if (!type) throw new UnhandledWebhookEventError(`${String(body.type)}:${String(data.status ?? body.action)}`);
  const eventId = field.str(body.id);
  if (!eventId) throw new InvalidWebhookError('Notification without id');
  // Refund events name the refund; disputes the payment; payment events the payment.
  const providerReference = type.startsWith('dispute.') ? (field.str(data.payment_id) ?? dataId) : dataId;
  const decimal = data.transaction_amount ?? data.amount;
  return {
    eventId,
    type,
    providerReference,
    reference: field.str(data.external_reference),
    amount: decimal === undefined ? null : fromDecimal(decimal, field.str(data.currency_id) ?? 'BRL'),
    occurredAt: new Date(field.str(body.date_created) ?? Date.now()).toISOString(),
    raw: body,
    disputeOutcome: type === 'dispute.closed' ? wonOrLost(field.str(data.status)) : null,
    // A rejected payment's status_detail is its reason, as fromPayment reads it (rawCode detail, rawMessage status).
    decline:
      type === 'payment.failed' ? { code: field.str(data.status_detail), message: field.str(data.status) } : null,
  };
}
