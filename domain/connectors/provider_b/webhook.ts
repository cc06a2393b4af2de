/**
 * provider_b (Adyen-like) notifications: HTTP Basic with the connector's {username, password} webhook secret, and,
 * when that secret also carries an `hmac_key` (hex), the item's additionalData.hmacSignature — base64 HMAC-SHA256
 * of pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success.
 * One notification item per request (what Adyen sends today); anything else is refused.
 */
import { createHmac } from 'node:crypto';
import { InvalidWebhookError, type InboundWebhook, UnhandledWebhookEventError } from '../connector';
import { field } from '../http';
import { headerOf, parseJsonBody, requireSecret, safeEqual, type WebhookRequest } from '../signatures';
import { webhookType } from './transformers';

interface BasicSecret {
  username: string;
  password: string;
  hmac_key?: string;
}

function parseSecret(secret: string): BasicSecret {
  try {
    const value = JSON.parse(secret) as Record<string, unknown>;
    if (typeof value.username === 'string' && typeof value.password === 'string') {
      return {
        username: value.username,
        password: value.password,
        hmac_key: typeof value.hmac_key === 'string' ? value.hmac_key : undefined,
      };
    }
  } catch {
    // fall through: the message must not quote the secret
  }
  throw new InvalidWebhookError('The connector webhook secret is not a {username, password} JSON object');
}

export function notificationHmac(item: Record<string, unknown>, hexKey: string): string {
  const amount = field.obj(item.amount);
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

function verifyBasic(headers: Record<string, string | undefined>, secret: BasicSecret): void {
  const match = /^Basic\s+(.+)$/i.exec(headerOf(headers, 'authorization') ?? '');
  const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  // Both halves are always compared, so timing does not reveal which one was wrong.
  const userOk = safeEqual(colon < 0 ? '' : decoded.slice(0, colon), secret.username);
  const passwordOk = safeEqual(colon < 0 ? '' : decoded.slice(colon + 1), secret.password);
  if (!match || colon < 0 || !userOk || !passwordOk)
    throw new InvalidWebhookError('Webhook Basic authentication failed');
}

export function parseWebhook(request: WebhookRequest): InboundWebhook {
  const secret = parseSecret(requireSecret(request.webhookSecret));
  verifyBasic(request.headers, secret);
  const body = parseJsonBody(request.rawBody);
  const items = field.list(body.notificationItems);
  if (items.length !== 1) throw new InvalidWebhookError('Expected exactly one notification item');
  const item = field.obj(field.obj(items[0]).NotificationRequestItem);
  if (secret.hmac_key) {
    const signature = field.str(field.obj(item.additionalData).hmacSignature) ?? '';
    if (!safeEqual(signature, notificationHmac(item, secret.hmac_key)))
      throw new InvalidWebhookError('Notification HMAC mismatch');
  }
  const eventCode = field.str(item.eventCode) ?? '';
  const success = field.str(item.success) ?? '';
  const type = webhookType(eventCode, success);
  if (!type) throw new UnhandledWebhookEventError(eventCode);
  const pspReference = field.str(item.pspReference);
  if (!pspReference) throw new InvalidWebhookError('Notification without pspReference');
  const originalReference = field.str(item.originalReference) ?? pspReference;
  return {
    // Adyen has no event id: pspReference + eventCode + success identifies a notification (its own dedup rule).
    eventId: `${pspReference}:${eventCode}:${success}`,
    type,
    // A capture or cancellation names the payment it modified in originalReference.
    providerReference: type.startsWith('capture.') || type.startsWith('void.') ? originalReference : pspReference,
    reference: field.str(item.merchantReference) || null,
    amount: field.num(field.obj(item.amount).value),
    occurredAt: new Date(field.str(item.eventDate) ?? Date.now()).toISOString(),
    raw: body,
    // The event code itself is the outcome: the chargeback reversed (won) or a second chargeback (lost).
    disputeOutcome: ['CHARGEBACK_REVERSED', 'PREARBITRATION_WON'].includes(eventCode)
      ? 'won'
      : ['SECOND_CHARGEBACK', 'PREARBITRATION_LOST'].includes(eventCode)
        ? 'lost'
        : null,
    // A refused AUTHORISATION names its refusal reason ("Refused", "Not enough balance") in `reason`; the
    // notification carries no refusalReasonCode, so the reason is both the code and the message.
    decline: type === 'payment.failed' ? { code: field.str(item.reason), message: field.str(item.reason) } : null,
  };
}
