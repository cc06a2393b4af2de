/**
 * checkout (Checkout.com-like) webhooks: `Cko-Signature` is the hex HMAC-SHA256 of the raw body keyed by the
 * connector's webhook secret, compared in constant time. The scheme signs no timestamp; the event id dedups.
 */
import { createHmac } from 'node:crypto';
import { InvalidWebhookError, type InboundWebhook, UnhandledWebhookEventError } from '../connector';
import { field } from '../http';
import { headerOf, parseJsonBody, requireSecret, safeEqual, type WebhookRequest } from '../signatures';
import { EVENT_TYPES, webhookProviderReference } from './transformers';

export function verifySignature(headers: Record<string, string | undefined>, rawBody: string, secret: string): void {
  const signature = (headerOf(headers, 'cko-signature') ?? '').trim().toLowerCase();
  const expected = createHmac('sha256', secret).update(rawBody).digest('hex');
  if (!signature || !safeEqual(signature, expected)) throw new InvalidWebhookError('Webhook signature mismatch');
}

/** The payment.failed events that are declines (payment_canceled is one too, without a reason of its own). */
const DECLINE_EVENTS = new Set(['payment_declined', 'payment_capture_declined']);

export function parseWebhook(request: WebhookRequest): InboundWebhook {
  verifySignature(request.headers, request.rawBody, requireSecret(request.webhookSecret));
  const body = parseJsonBody(request.rawBody);
  const eventType = field.str(body.type) ?? '';
  const type = EVENT_TYPES[eventType];
  if (!type) throw new UnhandledWebhookEventError(eventType);
  const data = field.obj(body.data);
  const eventId = field.str(body.id);
  const providerReference = webhookProviderReference(type, data);
  if (!eventId || !providerReference) throw new InvalidWebhookError('Webhook without id or payment id');
  return {
    eventId,
    type,
    providerReference,
    reference: field.str(data.reference),
    amount: field.num(data.amount),
    occurredAt: new Date(field.str(body.created_on) ?? Date.now()).toISOString(),
    raw: body,
    // Withdrawn by the issuer (canceled) leaves the money with the merchant; accepted by the merchant is a loss.
    disputeOutcome: ['dispute_won', 'dispute_canceled'].includes(eventType)
      ? 'won'
      : ['dispute_lost', 'dispute_accepted'].includes(eventType)
        ? 'lost'
        : null,
    // A declined payment's response_code and response_summary, as fromPayment reads a decline (a canceled one's
    // would be its last action's, not a reason).
    decline: DECLINE_EVENTS.has(eventType)
      ? { code: field.str(data.response_code), message: field.str(data.response_summary) }
      : null,
  };
}
