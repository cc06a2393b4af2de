/**
 * What follows a charge that was decided paid, whichever workflow decided it (the cascade, a settlement, a
 * resolution, a 3-D Secure wait): a recurring first charge starts its subscription (a lost race for the plan gives
 * the charge back), a renewal's charge tells its subscription workflow. And the TransactionStatus search attribute
 * every charge workflow keeps.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  executeChild,
  getExternalWorkflowHandle,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { OperationInput, PlannedAttempt } from './lib/transaction-types';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES } from './definitions';
import { databaseActivities } from './lib/transaction-activities';
import {
  renewalSettledSignal,
  subscriptionWorkflowId,
  SUBSCRIPTION_WORKFLOW,
  type SubscriptionWorkflow,
} from './subscription.shared';
import { transactionOperationWorkflow } from './transaction-operation';
import { operationWorkflowId } from './transaction-operation.shared';
import { SUBSCRIPTION_ALREADY_EXISTS } from './lib/subscription-rules';

const db = databaseActivities();

export const setStatus = (status: string) =>
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.TransactionStatus, value: status }]);

const lostThePlanRace = (error: unknown) =>
  error instanceof ActivityFailure &&
  error.cause instanceof ApplicationFailure &&
  error.cause.type === SUBSCRIPTION_ALREADY_EXISTS;

/**
 * A paid first charge of a recurring offer starts its subscription: the activity writes it once (id derived from
 * the transaction), and the workflow subscription-<sub id> is started as an abandoned child — Temporal records the
 * start in this history, so a retried or replayed charge never starts it twice. `captured`: the charge took the
 * money (false: it holds an authorization, capture: false).
 */
export async function startSubscription(transactionId: string, captured: boolean): Promise<void> {
  let state: Awaited<ReturnType<typeof db.createSubscriptionForTransaction>>;
  try {
    state = await db.createSubscriptionForTransaction({ transactionId, at: new Date().toISOString() });
  } catch (error) {
    if (!lostThePlanRace(error)) throw error;
    // Another first charge of the same plan and customer got its subscription first (both passed the check before
    // charging): this charge is given back in full rather than kept without a subscription.
    await giveBackDuplicate(transactionId, captured);
    return;
  }
  if (!state) return;
  // The deployment's dunning schedule, read once by an activity so the child's input (and this history) holds it.
  const settings = await db.subscriptionSettings();
  // By name: workflows/subscription.ts runs charges, so this module does not import it. A test clock's subscription
  // runs on the test-clock queue, where the renewals its advances cause run too (never in live charges' slots).
  await startChild<SubscriptionWorkflow>(SUBSCRIPTION_WORKFLOW, {
    workflowId: subscriptionWorkflowId(state.subscriptionId),
    ...(state.testClock ? { taskQueue: TASK_QUEUES.testClocks } : {}),
    args: [{ state, dunningScheduleDays: settings.dunningScheduleDays }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTE_KEYS.OrganizationId, value: state.organizationId },
      { key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: state.merchantId },
      { key: SEARCH_ATTRIBUTE_KEYS.CustomerId, value: state.customerId },
      { key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: state.status },
    ],
  });
}

const DUPLICATE = 'duplicate_subscription';

/**
 * Gives back a first charge that lost the race for its plan: an authorization is voided (nothing was taken), a
 * captured charge refunded in full. A void the merchant overtook with a capture (TRANSACTION_ALREADY_CAPTURED)
 * becomes the refund.
 */
async function giveBackDuplicate(transactionId: string, captured: boolean): Promise<void> {
  const operation = (input: OperationInput) =>
    executeChild(transactionOperationWorkflow, {
      workflowId: operationWorkflowId(input),
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      // The charge's MerchantId, CustomerId, OrganizationId and TransactionId: found where the charge is.
      typedSearchAttributes: workflowInfo().typedSearchAttributes,
    });
  if (!captured) {
    // One void per transaction and reason: its workflow id (the provider's idempotency key) is void-<tx>-<reason>.
    const voided = await operation({ kind: 'void', operationId: DUPLICATE, transactionId });
    if (voided.ok || voided.code !== 'TRANSACTION_ALREADY_CAPTURED') return;
  }
  const refundId = await db.givenBackRefundId({ transactionId, reason: DUPLICATE });
  await operation({ kind: 'refund', operationId: refundId, refundId, transactionId, reason: DUPLICATE });
}

/**
 * A pending charge that settles paid gets what the synchronous approval gets in transactionWorkflow: a recurring first
 * charge starts its subscription; a renewal's charge tells its subscription workflow (best effort: the workflow
 * may be gone, and the subscription's own reading of the transaction stays the fallback).
 */
export async function followSettledCharge(transactionId: string, captured: boolean): Promise<void> {
  const followUp = await db.settledChargeFollowUp({ transactionId });
  if (followUp.firstRecurringCharge) {
    try {
      await startSubscription(transactionId, captured);
    } catch (error) {
      // Started already (a repeated settlement): the one subscription workflow stands. (The class lives in
      // @temporalio/common, which workflow code does not import.)
      if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
    }
  }
  if (followUp.renewalOf) await tellRenewal(followUp.renewalOf, transactionId);
}

/**
 * The system's verdict on one attempt, found after the cascade returned (a resolution's lookup, a 3-D Secure wait):
 * approved → authorized or pre_authorized by the capture mode and followed as a settled charge; anything else →
 * failed, and a renewal's subscription is told. Written once under `<workflow id>:final`.
 */
export async function finalizeAttemptVerdict(verdict: {
  transactionId: string;
  workflowId: string;
  attempt: PlannedAttempt;
  amount: number;
  capture: boolean;
  approved: boolean;
  /** The provider's reference of the payment (kept on the transaction when approved). */
  providerReference: string | null;
}): Promise<{ transactionId: string; status: string }> {
  const { transactionId, capture, amount, approved } = verdict;
  const to = approved ? (capture ? 'authorized' : 'pre_authorized') : 'failed';
  await db.finalizeTransaction({
    transactionId,
    to,
    triggeredBy: 'system',
    key: `${verdict.workflowId}:final`,
    ...(approved
      ? {
          successful: {
            attempt: verdict.attempt,
            providerReference: verdict.providerReference,
            paymentInstructions: null,
          },
          amountAuthorized: amount,
          amountCaptured: capture ? amount : 0,
        }
      : {}),
  });
  setStatus(to);
  if (approved) await followSettledCharge(transactionId, capture);
  else {
    const { renewalOf } = await db.settledChargeFollowUp({ transactionId });
    if (renewalOf) await tellRenewal(renewalOf, transactionId);
  }
  return { transactionId, status: to };
}

/** Tells a renewal's subscription workflow that its charge was decided, so it reads the transaction now. */
export async function tellRenewal(subscriptionId: string, transactionId: string): Promise<void> {
  try {
    await getExternalWorkflowHandle(subscriptionWorkflowId(subscriptionId)).signal(renewalSettledSignal, {
      transactionId,
    });
  } catch {
    // No such workflow (ended, or never started): nothing waits for this renewal; it reads the transaction later.
  }
}
