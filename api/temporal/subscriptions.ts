/** Subscription workflows: start, operations as validated Updates, and the billing-resumed signal. */
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApiError } from '../../domain/platform/errors';
import { SEARCH_ATTRIBUTE_KEYS as SA, TASK_QUEUES } from '../../workflows/definitions';
import { subscriptionWorkflow } from '../../workflows/subscription';
import {
  authenticateRenewalUpdate,
  billingResumedSignal,
  cancelUpdate,
  changeOfferUpdate,
  changePaymentInstrumentUpdate,
  pauseUpdate,
  reactivateUpdate,
  resumeUpdate,
  subscriptionWorkflowId,
  type CancelRequest,
  type ChangeInstrumentRequest,
  type ChangeOfferRequest,
  type PauseRequest,
} from '../../workflows/subscription.shared';
import type { Caller } from '../../workflows/lib/subscription-moves';
import { AUTHENTICATION_LINK_INVALID } from '../../workflows/lib/subscription-rules';
import type { SubscriptionState } from '../../workflows/lib/subscription-state';
import { ApplicationFailure } from '@temporalio/common';
import { withWorkflowDeadline, WorkflowWaitTimeout } from './waits';

// ── Subscriptions ────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Starts the subscription's workflow (a second start of the same subscription is a no-op); one on a test clock runs
 * on the test-clock task queue, with the renewals it runs.
 */
export async function startSubscriptionWorkflow(
  client: Client,
  state: SubscriptionState,
  taskQueue: string = state.testClock ? TASK_QUEUES.testClocks : TASK_QUEUES.payments,
): Promise<void> {
  try {
    await client.workflow.start(subscriptionWorkflow, {
      workflowId: subscriptionWorkflowId(state.subscriptionId),
      taskQueue,
      args: [{ state }],
      typedSearchAttributes: [
        { key: SA.OrganizationId, value: state.organizationId },
        { key: SA.MerchantId, value: state.merchantId },
        { key: SA.CustomerId, value: state.customerId },
        { key: SA.SubscriptionStatus, value: state.status },
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

export type SubscriptionOperationRequest =
  | { kind: 'cancel'; args: CancelRequest }
  | { kind: 'reactivate'; args: Caller }
  | { kind: 'pause'; args: PauseRequest }
  | { kind: 'resume'; args: Caller }
  | { kind: 'change_offer'; args: ChangeOfferRequest }
  | { kind: 'change_payment_instrument'; args: ChangeInstrumentRequest };

/**
 * Runs one operation as an Update of the subscription's workflow and waits until the workflow has written it to
 * the read model. updateId (from the Idempotency-Key when sent) makes a retried request join the first Update.
 * A move the state forbids (the workflow's validator, or its re-check under the lock) is a 422.
 */
export async function updateSubscription(
  client: Client,
  subscriptionId: string,
  request: SubscriptionOperationRequest,
  updateId: string,
  waitMs: number,
): Promise<SubscriptionState> {
  const handle = client.workflow.getHandle<typeof subscriptionWorkflow>(subscriptionWorkflowId(subscriptionId));
  const options = { updateId };
  try {
    return await withWorkflowDeadline(client, waitMs, () => {
      switch (request.kind) {
        case 'cancel':
          return handle.executeUpdate(cancelUpdate, { ...options, args: [request.args] });
        case 'reactivate':
          return handle.executeUpdate(reactivateUpdate, { ...options, args: [request.args] });
        case 'pause':
          return handle.executeUpdate(pauseUpdate, { ...options, args: [request.args] });
        case 'resume':
          return handle.executeUpdate(resumeUpdate, { ...options, args: [request.args] });
        case 'change_offer':
          return handle.executeUpdate(changeOfferUpdate, { ...options, args: [request.args] });
        case 'change_payment_instrument':
          return handle.executeUpdate(changePaymentInstrumentUpdate, { ...options, args: [request.args] });
      }
    });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type) {
      throw new ApiError(422, 'business_rule_error', error.cause.type, error.cause.message, {
        subscription_id: subscriptionId,
      });
    }
    if (error instanceof WorkflowNotFoundError) {
      throw new ApiError(422, 'business_rule_error', 'INVALID_STATE_TRANSITION', 'The subscription has ended', {
        subscription_id: subscriptionId,
      });
    }
    if (error instanceof WorkflowWaitTimeout) {
      throw new ApiError(
        504,
        'external_service_error',
        'SUBSCRIPTION_STILL_PROCESSING',
        'The operation is still being processed; retry with the same Idempotency-Key or read the subscription later',
        { subscription_id: subscriptionId },
      );
    }
    throw error;
  }
}

/**
 * The customer confirmed a renewal's authentication link: the subscription's workflow checks the link and starts
 * their on-session charge (answering its transaction id). A link it refuses, or a subscription whose workflow has
 * ended, is a 410 (the page says so); a workflow that does not answer in time is a 504.
 */
export async function authenticateRenewal(
  client: Client,
  subscriptionId: string,
  linkId: string,
  waitMs: number,
): Promise<{ transactionId: string }> {
  const handle = client.workflow.getHandle<typeof subscriptionWorkflow>(subscriptionWorkflowId(subscriptionId));
  try {
    return await withWorkflowDeadline(client, waitMs, () =>
      handle.executeUpdate(authenticateRenewalUpdate, { args: [{ linkId }] }),
    );
  } catch (error) {
    const refused = error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure;
    if (refused || error instanceof WorkflowNotFoundError) {
      const message = refused ? error.cause.message : 'The subscription has ended';
      throw new ApiError(410, 'business_rule_error', AUTHENTICATION_LINK_INVALID, message);
    }
    if (error instanceof WorkflowWaitTimeout) {
      throw new ApiError(504, 'external_service_error', 'SUBSCRIPTION_STILL_PROCESSING', 'Try again in a minute');
    }
    throw error;
  }
}

/**
 * Tells held subscriptions that billing may be possible again (a connector activated, an offer restored, the
 * merchant made active again): each looks again shortly after (the change commits first). A subscription whose
 * workflow has ended is skipped.
 */
export async function signalBillingResumed(client: Client, subscriptionIds: string[]): Promise<void> {
  for (const id of subscriptionIds) {
    try {
      await client.workflow.getHandle(subscriptionWorkflowId(id)).signal(billingResumedSignal);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
}
