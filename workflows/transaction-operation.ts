/**
 * Capture, void or refund of one transaction (workflow id `<kind>-<operation id>`): begin (checks and reserves
 * the move under the row lock, or returns the 422 code), one provider call with the workflow id as provider
 * idempotency key, then finish. The API starts it and waits for its result.
 */
import { ActivityFailure, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { UNRESOLVED_PROVIDER_CALL, type OperationInput } from './lib/charge-types';
import { SEARCH_ATTRIBUTE_KEYS } from './definitions';
import { databaseActivities, providerActivities } from './lib/payment-activities';

const db = databaseActivities();
const provider = providerActivities();

export const operationWorkflowId = (input: Pick<OperationInput, 'kind' | 'operationId'>) =>
  `${input.kind}-${input.operationId}`;

export type OperationResult = { ok: true; outcome: string } | { ok: false; code: string; message: string };

export async function transactionOperationWorkflow(input: OperationInput): Promise<OperationResult> {
  const start = await db.beginOperation(input);
  if (!start.ok) return start;
  const result = await provider
    .providerOperation({ ...input, start, idempotencyKey: workflowInfo().workflowId })
    .catch((error) => {
      if (!(error instanceof ActivityFailure)) throw error;
      // No answer on any try: finish as a processing error (a capture returns to pre_authorized, a refund stays pending)
      // rather than leave the transaction stuck in capture_pending.
      return { outcome: 'processing_error' as const, providerReference: null, rawCode: UNRESOLVED_PROVIDER_CALL };
    });
  const status = await db.finishOperation({ ...input, start, ...result });
  // The starter set MerchantId and the status before the move; keep TransactionStatus current for operators.
  if (status) upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.TransactionStatus, value: status }]);
  return { ok: true, outcome: result.outcome };
}
