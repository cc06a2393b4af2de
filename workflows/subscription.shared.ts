/**
 * What the subscription workflow shares with those who start, update, query or signal it: its id, input, the
 * operations' requests, its Updates, query and signals (named as sent on the wire) and its registered name. Pure,
 * like Temporal's samples' shared.ts: the API, other workflows and tests import this file, not the workflow module.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Wake } from './lib/subscription-billing';
import type { Caller, TargetOffer } from './lib/subscription-moves';
import type { SubscriptionState } from './lib/subscription-state';

export const subscriptionWorkflowId = (subscriptionId: string) => `subscription-${subscriptionId}`;

/** Registered name (workflows/index.ts): a starter that must not import workflows/subscription.ts starts by name. */
export const SUBSCRIPTION_WORKFLOW = 'subscriptionWorkflow';
export type SubscriptionWorkflow = (input: SubscriptionWorkflowInput) => Promise<string>;

export interface SubscriptionWorkflowInput {
  state: SubscriptionState;
  /** Days after dunning_started_at of each retry; the deployment's setting (default 1, 3, 5, 7). */
  dunningScheduleDays?: number[];
  /** Steps written so far (carried across continue-as-new: step keys stay unique). */
  stepCount?: number;
  /** Continue-as-new after this many steps in one run at the latest (default 500). */
  stepsPerRun?: number;
}

export interface CancelRequest extends Caller {
  atPeriodEnd: boolean;
  reason: string | null;
}
export interface PauseRequest extends Caller {
  reason: string | null;
}
export interface ChangeOfferRequest extends Caller {
  target: TargetOffer;
}
export interface ChangeInstrumentRequest extends Caller {
  paymentInstrumentId: string;
}

// Named as sent on the wire. Each answers with the state after the move (already in the read model).
export const cancelUpdate = defineUpdate<SubscriptionState, [CancelRequest]>('cancel');
export const reactivateUpdate = defineUpdate<SubscriptionState, [Caller]>('reactivate');
export const pauseUpdate = defineUpdate<SubscriptionState, [PauseRequest]>('pause');
export const resumeUpdate = defineUpdate<SubscriptionState, [Caller]>('resume');
export const changeOfferUpdate = defineUpdate<SubscriptionState, [ChangeOfferRequest]>('changeOffer');
export const changePaymentInstrumentUpdate = defineUpdate<SubscriptionState, [ChangeInstrumentRequest]>(
  'changePaymentInstrument',
);

/**
 * The customer opened a renewal's authentication link: the workflow checks the link (refuseAuthentication) and
 * starts the customer's on-session charge of the renewal, answering with its transaction id.
 */
export interface AuthenticateRenewalRequest {
  linkId: string;
}
export const authenticateRenewalUpdate = defineUpdate<{ transactionId: string }, [AuthenticateRenewalRequest]>(
  'authenticateRenewal',
);

export interface SubscriptionWorkflowView {
  state: SubscriptionState;
  nextWakeAt: string | null;
  nextWakeReason: Wake['reason'] | null;
}
export const viewQuery = defineQuery<SubscriptionWorkflowView>('view');
/**
 * A connector was activated, an offer restored or the merchant made active again: a held subscription looks again
 * (after the change commits).
 */
export const billingResumedSignal = defineSignal('billingResumed');
/** A renewal charge that was pending reached a final state (the settlement path): read it now. */
export const renewalSettledSignal = defineSignal<[{ transactionId: string }]>('renewalSettled');
