/**
 * What the subscription workflow holds and hands its activities: plain JSON (ISO dates), ids and amounts only.
 * The workflow owns time — every date here comes from its clock — and each step projects this state onto the
 * read model (domain/subscriptions), so the row always shows what the workflow decided.
 */
import { addBillingPeriods, type BillingCycleValue } from './pricing';
import type { SubscriptionStatusValue } from './subscription-rules';

export interface SubscriptionState {
  subscriptionId: string;
  organizationId: string;
  merchantId: string;
  customerId: string;
  status: SubscriptionStatusValue;
  offerId: string;
  productId: string;
  productFamilyId: string | null;
  /** What a cycle costs: the unit price the buyer was shown times `quantity`. */
  amount: number;
  /** Units sold (a checkout line's quantity); 1 when absent (states recorded before it existed). */
  quantity?: number;
  currency: string;
  billingCycle: BillingCycleValue;
  customDays: number | null;
  cycleLimit: number | null;
  /** Charge number n (from 0) of the calendar falls due at anchor + n cycles, month-end clamped. */
  anchorAt: string;
  nextDueIndex: number;
  periodStart: string;
  periodEnd: string;
  trialStart: string | null;
  trialEnd: string | null;
  cyclesCompleted: number;
  cancelAtPeriodEnd: boolean;
  cancelledAt: string | null;
  cancellationReason: string | null;
  dunningStartedAt: string | null;
  /** Retries run so far in the current dunning (dunning_attempt_count). */
  dunningAttempts: number;
  paymentInstrumentId: string;
  /** The status a pause interrupted, so resume knows whether the trial was still running. */
  pausedFrom: 'trialing' | 'active' | null;
  /** Prorations of offer changes not yet billed: added to (or, negative, taken off) the next renewal charge. */
  pendingProration: number;
  /** A dunning retry brought forward (a new payment instrument): runs at this instant instead of on schedule. */
  retryNowAt: string | null;
  /** Billing hold (no active connector, or the offer no longer available): when the workflow looks again. */
  holdCheckAt: string | null;
  /** When the current billing hold began: a dunning's remaining retries move forward by the hold's length. */
  heldSince?: string | null;
  /**
   * A renewal charge whose outcome is not final yet (held for review at the provider, or an unknown outcome the
   * reconciler has not settled): nothing else is billed until it is, and its outcome is applied when it is.
   */
  settling?: SettlingRenewal | null;
  /**
   * A charge refused for a reason that is not the card's (no route because every circuit is open, a processing or
   * network error, a charge that never opened): no dunning step; the charge due is tried again at `at`. `tries`
   * counts those retries, so each gets a charge of its own. Cleared once a charge is paid or declined by the issuer.
   */
  billingRetry?: { at: string; tries: number } | null;
  /** The test clock the subscription runs on; absent or null: real time (durable timers). */
  testClock?: TestClockTime | null;
  /**
   * A renewal the issuer would only take with the customer present (declined authentication_required): the hosted
   * link that lets the customer pay it on-session while dunning goes on. Valid for cycle `cycleNumber` only.
   */
  authentication?: RenewalAuthentication | null;
}

/** The hosted link of a renewal that needs the customer's authentication (one per link; single use). */
export interface RenewalAuthentication {
  linkId: string;
  /** The cycle the link pays (cycles_completed + 1 when it was issued). */
  cycleNumber: number;
  /** When the link stops working: the dunning's last scheduled retry. */
  expiresAt: string;
  /** The link has started its charge: it starts no other. */
  used: boolean;
}

/**
 * A subscription's time on a test clock. The workflow's "now" is `now`; an advance moves `frozenTime` forward and
 * the workflow runs every wake due up to it, each at its own instant, then stands at frozenTime and reports idle.
 */
export interface TestClockTime {
  id: string;
  /** The instant the workflow is at: the wake it is running, or frozenTime once idle. */
  now: string;
  /** The clock's time as of its last advance. */
  frozenTime: string;
  /** The advance workflow waiting for this subscription to be idle at frozenTime (null: none). */
  reportTo: string | null;
  /**
   * The time that advance asked about, when it is earlier than frozenTime: the subscription was already past it (an
   * advance that ran although its start was answered with an error, so the clock row went back). Absent: frozenTime.
   */
  reportAt?: string;
}

/** What a renewal charge billed, so its outcome can be applied to the state as it is when the outcome arrives. */
export interface BilledCharge {
  /** The renewal order (null for a cycle that cost nothing). */
  orderId: string | null;
  /** The offer amount billed (quantity included). */
  amount: number;
  /** The part of pendingProration this charge included. */
  proration: number;
  /** What was charged: max(0, amount + proration). */
  charged: number;
  /** The instrument charged (absent in states recorded before it was kept). */
  paymentInstrumentId?: string;
}

export interface SettlingRenewal extends BilledCharge {
  transactionId: string;
  /** When the workflow next reads the transaction (a renewalSettled signal brings it forward). */
  checkAt: string;
  /** Reads so far (the interval grows with them). */
  checks: number;
  /**
   * The customer's own charge through the renewal's authentication link (not a dunning step): paid, it pays the
   * renewal; failed or abandoned, the dunning goes on as it stood.
   */
  onSession?: boolean;
}

export const TRIGGERS = ['customer', 'system', 'admin'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export interface ActorInput {
  id: string;
  type: string;
  name: string | null;
  email: string | null;
}

export type SubscriptionEventName =
  | 'subscription.created'
  | 'subscription.renewed'
  | 'subscription.dunning'
  | 'subscription.reactivated'
  | 'subscription.upgraded'
  | 'subscription.downgraded'
  | 'subscription.payment_method_changed'
  | 'subscription.paused'
  | 'subscription.resumed'
  | 'subscription.cancelled'
  | 'subscription.expired';

export interface TransitionInput {
  type:
    | 'creation'
    | 'upgrade'
    | 'downgrade'
    | 'reactivation'
    | 'cancellation'
    | 'trial_start'
    | 'trial_conversion'
    | 'payment_method_change'
    | 'dunning_entry'
    | 'dunning_retry'
    | 'dunning_cancelled'
    | 'expiration'
    | 'cycle_limit_renewed'
    | 'pause'
    | 'resume';
  fromStatus: SubscriptionStatusValue | null;
  fromOfferId: string | null;
  toOfferId: string | null;
  triggeredBy: Trigger;
  actor?: ActorInput | null;
  orderId?: string | null;
  reason?: string | null;
  metadata?: Record<string, unknown> | null;
}

/**
 * A stored card that needs the customer: reported gone (stolen, lost, expired, pick up), to be replaced; or one the
 * issuer takes only with the customer present (authentication_required), to be authenticated through a link.
 */
export interface InstrumentActionRequired {
  paymentInstrumentId: string;
  /** The provider's decline code that said so. */
  reason: string;
  /** The renewal order the decline happened on. */
  orderId: string | null;
  /** authentication_required: the hosted link the customer authenticates through (event and e-mail carry it). */
  link?: { linkId: string; expiresAt: string; amount: number; currency: string } | null;
}

/** One step of the workflow: the new state, at most one transition and the events it fires, written together once. */
export interface SubscriptionStep {
  state: SubscriptionState;
  /** Unique per step (workflow id + what happened + its position): a retried write changes nothing twice. */
  key: string;
  /** The workflow's clock when the step happened. */
  at: string;
  transition: TransitionInput | null;
  events: SubscriptionEventName[];
  /** When the next dunning retry runs (null outside dunning or when the schedule is exhausted). */
  dunningNextRetryAt: string | null;
  /** Fires payment_method.action_required with this step (so once, like the step). */
  actionRequired?: InstrumentActionRequired | null;
}

/** When charge number `index` of the calendar falls due (null: billing_cycle none, never). */
export function dueAt(state: Pick<SubscriptionState, 'anchorAt' | 'billingCycle' | 'customDays'>, index: number) {
  return addBillingPeriods(new Date(state.anchorAt), state.billingCycle, state.customDays, index);
}

/** The instant the read model shows as next_billing_at, given the workflow's next dunning retry. */
export function nextBillingAt(state: SubscriptionState, dunningNextRetryAt: Date | null): Date | null {
  switch (state.status) {
    case 'trialing':
      return state.trialEnd ? laterOf(new Date(state.trialEnd), state.billingRetry?.at) : null;
    case 'active': {
      const due = state.cancelAtPeriodEnd ? null : dueAt(state, state.nextDueIndex);
      return due && laterOf(due, state.billingRetry?.at);
    }
    case 'dunning':
      return dunningNextRetryAt;
    default:
      return null;
  }
}

/** A due charge waits for a retry after an outage (billingRetry) when that comes later. */
const laterOf = (due: Date, retryAt: string | undefined) =>
  retryAt && Date.parse(retryAt) > due.getTime() ? new Date(retryAt) : due;

/** Day of month the calendar bills on (month-based cycles only). */
export function billingAnchorDay(state: Pick<SubscriptionState, 'anchorAt' | 'billingCycle'>): number | null {
  const monthly = ['monthly', 'quarterly', 'half_yearly', 'yearly'].includes(state.billingCycle);
  return monthly ? new Date(state.anchorAt).getUTCDate() : null;
}
