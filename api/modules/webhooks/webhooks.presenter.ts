/**
 * Document 1's Webhook configuration object and Webhook delivery record. The stored secrets are never read
 * here; the plaintext secret is added only by the create and rotate-secret responses.
 */
import type { EventRecord, WebhookConfig, WebhookDelivery } from '../../../db/entities';
import { eventEnvelope } from '../../../domain/events/events.outbox';
import { apiDeliveryStatus } from './delivery-status.rules';

export function presentWebhookConfig(config: WebhookConfig) {
  return {
    id: config.id,
    merchant_id: config.merchantId,
    url: config.url,
    description: config.description,
    event_filter: config.eventFilter,
    is_active: config.isActive,
    created_at: config.createdAt.toISOString(),
    updated_at: config.updatedAt.toISOString(),
    last_triggered_at: config.lastTriggeredAt?.toISOString() ?? null,
  };
}

export const presentWebhookConfigWithSecret = (config: WebhookConfig, secret: string) => ({
  ...presentWebhookConfig(config),
  secret,
});

const stringField = (object: Record<string, unknown>, name: string): string | null =>
  typeof object[name] === 'string' ? object[name] : null;

/** transaction.* events carry the transaction (or, for refunds and disputes, an object naming it). */
function transactionIdOf(object: Record<string, unknown>): string | null {
  const id = stringField(object, 'id');
  if (id?.startsWith('tx_')) return id;
  return stringField(object, 'transaction_id') ?? stringField(object, 'payment_transaction_id');
}

export function presentDelivery(delivery: WebhookDelivery, event: EventRecord) {
  return {
    id: delivery.id,
    merchant_id: delivery.merchantId,
    merchant_webhook_config_id: delivery.webhookConfigId,
    payment_transaction_id: transactionIdOf(event.data),
    order_id: stringField(event.data, 'order_id'),
    event_type: delivery.eventType,
    livemode: delivery.livemode,
    payload: eventEnvelope(event),
    target_url: delivery.targetUrl,
    attempt_number: delivery.attemptNumber,
    http_status_code: delivery.httpStatusCode,
    response_body: delivery.responseBody,
    status: apiDeliveryStatus(delivery.status),
    next_retry_at: delivery.nextRetryAt?.toISOString() ?? null,
    created_at: delivery.createdAt.toISOString(),
    sent_at: delivery.sentAt?.toISOString() ?? null,
    event_id: delivery.eventId,
    trigger: delivery.trigger,
    error: delivery.error,
    duration_ms: delivery.durationMs,
  };
}
