/** Starting webhook workflows from the API: manual redeliveries and recoveries (ids never collide with automatic ones). */
import type { Client } from '@temporalio/client';
import { randomBase62 } from '../../lib/ids';
import { TASK_QUEUES } from '../../../workflows/definitions';
import { deliveryWorkflowId } from '../../../workflows/webhook-delivery';
import { webhookRecoverWorkflow } from '../../../workflows/webhook-fan-out';
import { MERCHANT_ID } from '../../../workflows/webhook-search-attributes';
import { startDelivery } from '../../../activities/webhooks/fan-out';

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
  await startDelivery(client, taskQueue, { ...delivery, trigger: 'manual' }, suffix);
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
  const suffix = `recover-${token}`;
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
        suffix,
      },
    ],
    typedSearchAttributes: [{ key: MERCHANT_ID, value: recovery.merchantId }],
  });
  return workflowId;
}
