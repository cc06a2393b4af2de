/**
 * The provider-webhook route's signals (api/modules/provider-webhooks/): a pix/boleto verdict to the transaction's
 * settlement workflow (or, for a card charge waiting on its 3-D Secure challenge, the wait's wake-up), and the wake-up of a charge resolution whose unresolved attempt just got its verdict.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { SettlementSignal } from '../../workflows/lib/transaction-types';
import {
  attemptVerdictKeptSignal,
  authenticationReturnedSignal,
  authenticationWorkflowId,
  providerEventSignal,
  settlementWorkflowId,
  transactionResolutionWorkflowId,
} from '../../workflows/transaction.shared';

/**
 * Hands a provider's pix/boleto verdict to the transaction's settlement workflow. False when that workflow does
 * not exist (yet): the webhook raced the charge's last step.
 */
export async function signalProviderEvent(
  client: Client,
  transactionId: string,
  event: SettlementSignal,
): Promise<boolean> {
  try {
    await client.workflow.getHandle(settlementWorkflowId(transactionId)).signal(providerEventSignal, event);
    return true;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  // No settlement: a card charge waiting for its 3-D Secure challenge asks its provider now (its answer decides; the
  // notification's verdict only where the provider has none, as Adyen without the buyer's redirectResult).
  try {
    await client.workflow
      .getHandle(authenticationWorkflowId(transactionId))
      .signal(authenticationReturnedSignal, { notified: event.type });
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * Wakes the resolution of a charge whose unresolved attempt just got the provider's verdict (kept on the attempt), so
 * it reads it now rather than at its next timer. A resolution that is gone (already decided, or not started yet)
 * reads the attempt on its own: nothing to wake.
 */
export async function wakeTransactionResolution(client: Client, transactionId: string): Promise<void> {
  try {
    await client.workflow.getHandle(transactionResolutionWorkflowId(transactionId)).signal(attemptVerdictKeptSignal);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
