/** The API's Temporal connection (typed starters and signals for workflows are added here as they land). */
import { Client, Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES } from '../workflows/definitions';
import { checkoutExpiryWorkflow, checkoutExpiryWorkflowId, expiresAtChangedSignal } from '../workflows/checkout-expiry';

export async function connectTemporal(
  address: string,
  namespace: string,
): Promise<{ connection: Connection; client: Client }> {
  const connection = await Connection.connect({ address });
  return { connection, client: new Client({ connection, namespace }) };
}

export interface CheckoutExpiryRequest {
  sessionId: string;
  merchantId: string;
  expiresAt: Date;
}

/**
 * Starts the session's expiry workflow, or tells the running one the new expires_at. signalWithStart makes
 * a repeated call harmless: one workflow per session, always holding the latest time.
 */
export async function scheduleCheckoutExpiry(
  client: Client,
  { sessionId, merchantId, expiresAt }: CheckoutExpiryRequest,
  taskQueue: string = TASK_QUEUES.payments,
): Promise<void> {
  const iso = expiresAt.toISOString();
  await client.workflow.signalWithStart(checkoutExpiryWorkflow, {
    workflowId: checkoutExpiryWorkflowId(sessionId),
    taskQueue,
    args: [{ sessionId, expiresAt: iso }],
    signal: expiresAtChangedSignal,
    signalArgs: [iso],
    typedSearchAttributes: [{ key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: merchantId }],
  });
}
