/**
 * provider_d (Authorize.net-like) webhooks: `X-ANET-Signature: sha512=<hex>`, the HMAC-SHA512 of the raw body keyed
 * by the connector's 128-hex-character signature key (compared case-insensitively, in constant time). The scheme
 * signs no timestamp; notificationId is the dedup key.
 */
import { createHmac } from 'node:crypto';
import { InvalidWebhookError, type InboundWebhook, UnhandledWebhookEventError } from '../connector';
import { field } from '../http';
import { fromDecimal } from '../money';
import { headerOf, parseJsonBody, requireSecret, safeEqual, type WebhookRequest } from '../signatures';
import { webhookType } from './transformers';

export function verifySignature(
  headers: Record<string, string | undefined>,
  rawBody: string,
  signatureKey: string,
): void {
  const header = headerOf(headers, 'x-anet-signature') ?? '';
  const match = /^sha512=([0-9a-fA-F]+)$/.exec(header.trim());
  const expected = createHmac('sha512', signatureKey).update(rawBody).digest('hex').toUpperCase();
  if (!match || !safeEqual(match[1].toUpperCase(), expected))
    throw new InvalidWebhookError('Webhook signature mismatch');
}

export function parseWebhook(request: WebhookRequest): InboundWebhook {
  verifySignature(request.headers, request.rawBody, requireSecret(request.webhookSecret));
  const body = parseJsonBody(request.rawBody);
  const payload = field.obj(body.payload);
  const eventType = field.str(body.eventType) ?? '';
  const type = webhookType(eventType, payload);
  if (!type) throw new UnhandledWebhookEventError(eventType);
  const eventId = field.str(body.notificationId);
  const providerReference = field.str(payload.id);
  if (!eventId || !providerReference) throw new InvalidWebhookError('Webhook without notificationId or transaction id');
  return {
    eventId,
    type,
    providerReference,
    reference: field.str(payload.merchantReferenceId),
    // authAmount is a decimal in the account's currency; every provider_d currency (USD, EUR, GBP) has two decimals.
    amount: payload.authAmount === undefined ? null : fromDecimal(payload.authAmount, 'USD'),
    occurredAt: new Date(field.str(body.eventDate) ?? Date.now()).toISOString(),
    raw: body,
  };
}
