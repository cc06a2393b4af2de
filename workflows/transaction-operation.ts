/**
 * Capture, void or refund of one transaction (workflow id `<kind>-<operation id>`): begin (checks and reserves
 * the move under the row lock, or returns the 422 code), one provider call with the workflow id as provider
 * idempotency key, then finish. An answer that is not definitive (a timeout, a 5xx, the key still in use, every
 * try failed) is looked up at the provider under that same key until it is: within seconds, then backing off.
 * Meanwhile the capture stays capture_pending and the refund pending. The API starts it and waits for its result.
 * A refund the provider answers pending (its verdict comes by webhook) is then polled at the provider by a child,
 * pendingRefundWorkflow (id refund-poll-<refund id>, abandoned), so the request is answered at once and the refund
 * is never left pending because its webhook was lost.
 */
import {
  ActivityFailure,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  continueAsNew,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { UNRESOLVED_PROVIDER_CALL, type OperationInput } from './lib/transaction-types';
import { SEARCH_ATTRIBUTE_KEYS } from './definitions';
import { pendingRefundWorkflowId, type OperationResult } from './transaction-operation.shared';
import { databaseActivities, providerActivities } from './lib/transaction-activities';

const db = databaseActivities();
const provider = providerActivities();
/** Waits between lookups of an unknown answer (the last one repeats): the first within seconds, then backing off. */
export const OPERATION_LOOKUP_DELAYS = [
  '5 seconds',
  '30 seconds',
  '1 minute',
  '5 minutes',
  '15 minutes',
  '1 hour',
] as const;

/** Waits between asking the provider about a pending refund (the last repeats): within a minute, then backing off. */
export const REFUND_POLL_DELAYS = [
  '1 minute',
  '2 minutes',
  '5 minutes',
  '15 minutes',
  '30 minutes',
  '1 hour',
  '6 hours',
] as const;
/** Asks per run before continuing as new: a refund pending for weeks keeps a short history. */
const POLLS_PER_RUN = 50;

type Answer = Awaited<ReturnType<typeof provider.providerOperation>>;

export async function transactionOperationWorkflow(input: OperationInput): Promise<OperationResult> {
  const start = await db.beginOperation(input);
  if (!start.ok) return start;
  const call = { ...input, start, idempotencyKey: workflowInfo().workflowId };
  let result: Answer = await provider.providerOperation(call).catch((error) => {
    if (!(error instanceof ActivityFailure)) throw error;
    // No answer on any try: the provider may have done it. Looked up below like any unknown answer.
    return {
      outcome: 'unknown',
      providerReference: null,
      rawCode: UNRESOLVED_PROVIDER_CALL,
    };
  });
  // The provider's read may not show the request yet: each lookup says how long ago it was sent (measured from the
  // call's end, which is no earlier than its last try; workflow time, so replay-safe).
  const answeredAt = Date.now();
  for (let tries = 0; result.outcome === 'unknown'; tries += 1) {
    if (tries > 0) await sleep(OPERATION_LOOKUP_DELAYS[Math.min(tries - 1, OPERATION_LOOKUP_DELAYS.length - 1)]);
    const found = await provider.lookupOperation({ ...call, sinceSentMs: Date.now() - answeredAt }).catch((error) => {
      if (!(error instanceof ActivityFailure)) throw error;
      return null;
    });
    if (found) result = found;
  }
  const status = await db.finishOperation({ ...input, start, ...result });
  // The starter set MerchantId and the status before the move; keep TransactionStatus current for operators.
  if (status) upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.TransactionStatus, value: status }]);
  // A refund the provider answered pending is polled, so a lost webhook never leaves it pending.
  if (input.kind === 'refund' && result.outcome === 'pending') await pollPendingRefund(call);
  return { ok: true, outcome: result.outcome };
}

type PendingRefundCall = Parameters<typeof provider.checkPendingRefund>[0];

/** Starts the refund's polling child (abandoned: this workflow answers the refund request now). */
async function pollPendingRefund(call: PendingRefundCall): Promise<void> {
  try {
    await startChild(pendingRefundWorkflow, {
      workflowId: pendingRefundWorkflowId(call.refundId!),
      args: [{ call, polls: 0 }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      // The operation's MerchantId and TransactionStatus: operators find the polling where they find the refund.
      typedSearchAttributes: workflowInfo().typedSearchAttributes,
    });
  } catch (error) {
    // Already polled (a repeated start): the one polling workflow stands. (The class lives in @temporalio/common,
    // which workflow code does not import.)
    if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
  }
}

/**
 * Asks the provider about a refund it answered pending until it is decided (by that lookup, which settles it, or
 * by the webhook meanwhile): a minute after, then backing off to every six hours. Returns the refund's result.
 */
export async function pendingRefundWorkflow(input: {
  call: PendingRefundCall;
  polls: number;
}): Promise<'succeeded' | 'failed' | 'missing'> {
  for (let polls = input.polls; ; polls += 1) {
    if (polls - input.polls >= POLLS_PER_RUN) await continueAsNew<typeof pendingRefundWorkflow>({ ...input, polls });
    await sleep(REFUND_POLL_DELAYS[Math.min(polls, REFUND_POLL_DELAYS.length - 1)]);
    const state = await provider.checkPendingRefund(input.call).catch((error) => {
      if (!(error instanceof ActivityFailure)) throw error;
      return 'pending' as const;
    });
    if (state !== 'pending') return state;
  }
}
