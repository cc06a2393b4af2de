/** The checkout session's durable expiry. */
import { type Client } from '@temporalio/client';
import { checkoutExpiryWorkflow } from '../../workflows/checkout-expiry';
import { checkoutExpiryWorkflowId, expiresAtChangedSignal } from '../../workflows/checkout-expiry.shared';
import { SEARCH_ATTRIBUTE_KEYS as SA, TASK_QUEUES } from '../../workflows/definitions';

// ── Checkout expiry ──────────────────────────────────────────────────────────────────────────────────────────

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
    typedSearchAttributes: [{ key: SA.MerchantId, value: merchantId }],
  });
}
