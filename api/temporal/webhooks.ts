/** Manual webhook redeliveries and recoveries. */
import { type Client } from '@temporalio/client';
import { randomBase62 } from '../../domain/platform/ids';
import { SEARCH_ATTRIBUTE_KEYS as SA, TASK_QUEUES } from '../../workflows/definitions';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { deliveryStartOptions, deliveryWorkflowId } from '../../workflows/webhook-delivery.shared';
import { webhookRecoverWorkflow } from '../../workflows/webhook-fan-out';

// ── Webhook redeliveries and recoveries (ids never collide with automatic deliveries) ───────────────────────

export interface ManualDelivery {
  eventId: string;
  configId: string;
  merchantId: string;
  eventType: string;
}

/** One attempt, under webhook-<evt>-<whc>-manual-<random>. Returns the workflow id. */
export async function startRedelivery(
  client: Client,
  delivery: ManualDelivery,
  taskQueue: string = TASK_QUEUES.webhooks,
): Promise<string> {
  const suffix = `manual-${randomBase62(12)}`;
  await client.workflow.start(
    webhookDeliveryWorkflow,
    deliveryStartOptions({ ...delivery, trigger: 'manual' }, taskQueue, suffix),
  );
  return deliveryWorkflowId(delivery.eventId, delivery.configId, suffix);
}

export interface Recovery {
  merchantId: string;
  configId: string;
  since: Date;
  until: Date;
}

/** A recovery workflow (webhook-recover-<whc>-<random>) whose deliveries carry the suffix recover-<random>. */
export async function startRecovery(
  client: Client,
  recovery: Recovery,
  taskQueue: string = TASK_QUEUES.webhooks,
): Promise<string> {
  const token = randomBase62(12);
  const workflowId = `webhook-recover-${recovery.configId}-${token}`;
  await client.workflow.start(webhookRecoverWorkflow, {
    workflowId,
    taskQueue,
    args: [
      {
        merchantId: recovery.merchantId,
        configId: recovery.configId,
        since: recovery.since.toISOString(),
        until: recovery.until.toISOString(),
        suffix: `recover-${token}`,
      },
    ],
    typedSearchAttributes: [{ key: SA.MerchantId, value: recovery.merchantId }],
  });
  return workflowId;
}
