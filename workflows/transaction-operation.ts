/**
 * Capture, void or refund of one transaction (workflow id `<kind>-<operation id>`): begin (checks and reserves
 * the move under the row lock, or returns the 422 code), one provider call with the workflow id as provider
 * idempotency key, then finish. The API starts it and waits for its result.
 */
import { ActivityFailure, proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { OperationInput } from './lib/charge-types';
import { SEARCH_ATTRIBUTE_KEYS } from './definitions';

// Database steps: idempotent, retried for a while.
const db = proxyActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 20 },
});
// The provider call: adapter timeout 15 s; heartbeats while in flight, so a dead worker is retried within 10 s;
// a retry replays at the provider under the same key.
const provider = proxyActivities<Activities>({
  startToCloseTimeout: '45 seconds',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

export const operationWorkflowId = (input: Pick<OperationInput, 'kind' | 'operationId'>) => `${input.kind}-${input.operationId}`;

export type OperationResult = { ok: true; outcome: string } | { ok: false; code: string; message: string };

export async function transactionOperationWorkflow(input: OperationInput): Promise<OperationResult> {
  const start = await db.beginOperation(input);
  if (!start.ok) return start;
  const result = await provider.providerOperation({ ...input, start, idempotencyKey: workflowInfo().workflowId }).catch((error) => {
    if (!(error instanceof ActivityFailure)) throw error;
    // No answer on any try: finish as a processing error (a capture returns to pre_authorized, a refund stays pending)
    // rather than leave the transaction stuck in capture_pending.
    return { outcome: 'processing_error' as const, providerReference: null, rawCode: 'provider_outcome_unknown' };
  });
  const status = await db.finishOperation({ ...input, start, ...result });
  // The starter set MerchantId and the status before the move; keep TransactionStatus current for operators.
  if (status) upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.TransactionStatus, value: status }]);
  return { ok: true, outcome: result.outcome };
}
