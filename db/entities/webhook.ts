import { EntitySchema } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps';

/** A merchant's outgoing-webhook endpoint. The signing secret is stored envelope-encrypted only. */
export interface WebhookConfig {
  id: string;
  merchantId: string;
  url: string;
  description: string | null;
  /** Event type names; null = every event. */
  eventFilter: string[] | null;
  isActive: boolean;
  secretEncrypted: string;
  /** The secret replaced by the last rotation, still used for a second signature until previousSecretExpiresAt. */
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
  lastTriggeredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const WebhookConfigSchema = new EntitySchema<WebhookConfig>({
  name: 'WebhookConfig',
  tableName: 'merchant_webhook_configs',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    url: { type: 'text' },
    description: { type: 'text', nullable: true },
    eventFilter: { type: 'string[]', columnType: 'text[]', nullable: true },
    isActive: { type: 'boolean', default: true },
    secretEncrypted: { type: 'text', hidden: true },
    previousSecretEncrypted: { type: 'text', nullable: true, hidden: true },
    previousSecretExpiresAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    lastTriggeredAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt,
    updatedAt,
  },
});

/** succeeded: 2xx; retrying: failed, another attempt at next_retry_at; failed: failed with no attempt left. */
export const DELIVERY_STATUSES = ['succeeded', 'retrying', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** automatic: the fan-out's delivery; manual: a redeliver or recover request. */
export type DeliveryTrigger = 'automatic' | 'manual';

/** One delivery attempt of one event to one configuration. */
export interface WebhookDelivery {
  id: string;
  merchantId: string;
  webhookConfigId: string;
  eventId: string;
  eventType: string;
  /** Its event's mode (written with the row, from the event). */
  livemode: boolean;
  workflowId: string;
  trigger: DeliveryTrigger;
  attemptNumber: number;
  targetUrl: string;
  httpStatusCode: number | null;
  /** At most 1 KiB of what the receiver answered. */
  responseBody: string | null;
  /** Why no HTTP status was obtained or used: timeout, connection_error, blocked_address, endpoint_disabled … */
  error: string | null;
  status: DeliveryStatus;
  nextRetryAt: Date | null;
  durationMs: number | null;
  createdAt: Date;
  sentAt: Date | null;
}

export const WebhookDeliverySchema = new EntitySchema<WebhookDelivery>({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    webhookConfigId: { type: 'string', fieldName: 'merchant_webhook_config_id' },
    eventId: { type: 'string' },
    eventType: { type: 'string' },
    livemode: { type: 'boolean' },
    workflowId: { type: 'string' },
    trigger: { type: 'string' },
    attemptNumber: { type: 'integer' },
    targetUrl: { type: 'text' },
    httpStatusCode: { type: 'integer', nullable: true },
    responseBody: { type: 'text', nullable: true },
    error: { type: 'string', nullable: true },
    status: { type: 'string' },
    nextRetryAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    durationMs: { type: 'integer', nullable: true },
    createdAt,
    sentAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});
