/**
 * Durable expiry of one checkout session (workflow id checkout-expiry-<cks id>): sleep until expires_at, then
 * let an idempotent activity mark the session expired if it is still waiting for its buyer. A PATCH that moves
 * expires_at signals expiresAtChanged and the sleep starts over; the activity re-reads the row anyway, so a
 * lost or late signal can only delay the write, never expire a session early.
 */
import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { expiresAtChangedSignal, type CheckoutExpiryInput, type CheckoutExpiryOutcome } from './checkout-expiry.shared';

// One indexed UPDATE: retries are safe (the activity is idempotent) and a minute is ample.
const { expireCheckoutSession } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

export async function checkoutExpiryWorkflow(input: CheckoutExpiryInput): Promise<CheckoutExpiryOutcome> {
  let expiresAt = Date.parse(input.expiresAt);
  setHandler(expiresAtChangedSignal, (value: string) => {
    const parsed = Date.parse(value);
    if (!Number.isNaN(parsed)) expiresAt = parsed;
  });

  for (;;) {
    if (workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof checkoutExpiryWorkflow>({
        sessionId: input.sessionId,
        expiresAt: new Date(expiresAt).toISOString(),
      });
    }
    const deadline = expiresAt;
    const remaining = deadline - Date.now();
    // Workflow time is deterministic (and skipped ahead in tests); a moved deadline restarts the wait.
    if (remaining > 0 && (await condition(() => expiresAt !== deadline, remaining))) continue;
    if (expiresAt !== deadline) continue;
    const result = await expireCheckoutSession(input.sessionId, new Date(Date.now()).toISOString());
    if (result.outcome !== 'not_due') return result.outcome;
    // The row says later (a PATCH whose signal has not arrived yet): sleep until then.
    expiresAt = Date.parse(result.expiresAt as string);
  }
}
