/**
 * Zero-amount card verification for enrolment (workflow id card-verification-<tok id>): try the planned
 * connectors in order, moving on only after a retryable outcome, like a charge's cascade. The input and the
 * result hold ids and outcomes only; the activity reads the sealed card itself, just before the provider call.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { isSafeToTryNextConnector } from './lib/transaction-types';
import type { CardVerificationInput, CardVerificationResult } from './card-verification.shared';

// One provider call per activity; an activity that crashes (database, worker restart) is retried with the same
// provider idempotency key, so the provider sees one verification.
const { verifyCardOnConnector } = proxyActivities<Activities>({
  startToCloseTimeout: '45 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

export async function cardVerificationWorkflow(input: CardVerificationInput): Promise<CardVerificationResult> {
  let last: CardVerificationResult | undefined;
  for (const [index, connectorId] of input.connectorIds.entries()) {
    const result = await verifyCardOnConnector({
      merchantId: input.merchantId,
      tokenId: input.tokenId,
      connectorId,
      currency: input.currency,
      // Stable across activity retries and workflow replays (never the run id).
      idempotencyKey: `${workflowInfo().workflowId}:${index + 1}`,
    });
    last = { ...result, connectorId, attempts: index + 1 };
    // One definition with the charge cascade: an unknown outcome never moves on to another connector.
    if (!isSafeToTryNextConnector(result.outcome)) break;
  }
  if (!last) throw new Error('cardVerificationWorkflow needs at least one connector');
  return last;
}
