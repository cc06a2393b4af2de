/**
 * provider_a webhooks, Standard Webhooks style: `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature`
 * (space-separated `v1,<base64>` entries) over `${id}.${timestamp}.${body}`, HMAC-SHA256 keyed by the base64
 * after the `whsec_` prefix; timestamps outside ±5 minutes are refused (replay protection).
 */
import { createHmac } from 'node:crypto';
import {
  InvalidWebhookError,
  wonOrLost,
  type InboundWebhook,
  type WebhookDecline,
  UnhandledWebhookEventError,
} from '../connector';
import { field } from '../http';
import { checkTimestamp, headerOf, parseJsonBody, requireSecret, safeEqual, type WebhookRequest } from '../signatures';
import { webhookProviderReference, webhookType } from './transformers';

export function verifySignature(
  headers: Record<string, string | undefined>,
  rawBody: string,
  secret: string,
  now = Date.now(),
): void {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp))
    throw new InvalidWebhookError('Missing webhook signature headers');
  checkTimestamp(Number(timestamp), now);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest('base64');
  // Check every candidate (key rotation sends several) without stopping early.
  let valid = false;
  for (const candidate of signatures.split(' ')) {
    const [version, signature = ''] = candidate.split(',');
    if (version === 'v1' && safeEqual(signature, expected)) valid = true;
  }
  if (!valid) throw new InvalidWebhookError('Webhook signature mismatch');
}

/** A failed PaymentIntent's last_payment_error, read as fromIntent reads it: decline_code, else code. */
function declineOf(intent: Record<string, unknown>): WebhookDecline {
  const error = field.obj(intent.last_payment_error);
  return { code: field.str(error.decline_code) ?? field.str(error.code), message: field.str(error.message) };
}

export function parseWebhook(request: WebhookRequest): InboundWebhook {
  verifySignature(request.headers, request.rawBody, requireSecret(request.webhookSecret));
  const body = parseJsonBody(request.rawBody);
  const eventType = field.str(body.type) ?? '';
  const object = field.obj(field.obj(body.data).object);
  const type = webhookType(eventType, object);
  if (!type) throw new UnhandledWebhookEventError(eventType);
  const eventId = field.str(body.id);
  const providerReference = webhookProviderReference(type, object);
  if (!eventId || !providerReference) throw new InvalidWebhookError('Webhook event without id or object id');
  const created = field.num(body.created);
  return {
    eventId,
    type,
    providerReference,
    reference: field.str(field.obj(object.metadata).reference),
    // What was approved: for a capturable intent, the amount it may capture.
    amount: field.num(
      eventType === 'payment_intent.amount_capturable_updated' ? object.amount_capturable : object.amount,
    ),
    occurredAt: new Date(created !== null ? created * 1000 : Date.now()).toISOString(),
    raw: body,
    // A closed dispute object's status is won or lost (warning_closed: an inquiry, no outcome).
    disputeOutcome: type === 'dispute.closed' ? wonOrLost(field.str(object.status)) : null,
    decline: type === 'payment.failed' ? declineOf(object) : null,
  };
}
