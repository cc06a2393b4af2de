/**
 * What the webhook delivery workflow shares with its starters (the outbox fan-out, the API's redeliveries) and
 * readers: its input, result, id, start options, status query and registered name. Pure, like Temporal's samples'
 * shared.ts: activities import this file, never workflows/webhook-delivery.ts.
 */
import { defineQuery } from '@temporalio/workflow';
import type { DeliveryEnd } from '../activities/webhooks/deliver';
import { SEARCH_ATTRIBUTE_KEYS as SA } from './definitions';

/** Registered name (workflows/index.ts): activities start the workflow by name. */
export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>;

export type DeliveryStatusValue = 'pending' | 'retrying' | 'succeeded' | 'failed';

export interface WebhookDeliveryInput {
  eventId: string;
  configId: string;
  merchantId: string;
  eventType: string;
  /** automatic: the full schedule; manual (redeliver, recover): one attempt. */
  trigger: 'automatic' | 'manual';
  /** Attempt 1 was made (and recorded as retrying) outside the workflow: continue with attempt 2. */
  firstAttempt?: FirstAttemptMade;
}

export interface FirstAttemptMade {
  /** Epoch ms of attempt 1: the retry window starts there. */
  at: number;
  /** Epoch ms attempt 2 is due (its recorded next_retry_at). */
  nextAt: number;
}

export interface WebhookDeliveryResult {
  status: 'succeeded' | 'failed';
  attempts: number;
  end: DeliveryEnd | 'error';
  lastHttpStatus: number | null;
}

export const deliveryWorkflowId = (eventId: string, configId: string, suffix?: string) =>
  `webhook-${eventId}-${configId}${suffix ? `-${suffix}` : ''}`;

/**
 * How a delivery workflow is started, by the fan-out activity and by the API's redeliveries alike: a finished
 * delivery (succeeded or failed) is never re-run under its id; manual sends use new ids (a suffix).
 */
export const deliveryStartOptions = (input: WebhookDeliveryInput, taskQueue: string, suffix?: string) => ({
  workflowId: deliveryWorkflowId(input.eventId, input.configId, suffix),
  taskQueue,
  args: [input] as [WebhookDeliveryInput],
  workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
  workflowIdConflictPolicy: 'FAIL' as const,
  typedSearchAttributes: [
    { key: SA.MerchantId, value: input.merchantId },
    { key: SA.EventType, value: input.eventType },
    { key: SA.DeliveryStatus, value: initialStatus(input) },
  ],
});

export const initialStatus = (input: WebhookDeliveryInput): DeliveryStatusValue =>
  input.firstAttempt ? 'retrying' : 'pending';

export const deliveryStatusQuery = defineQuery<DeliveryStatusValue>('deliveryStatus');
