/**
 * Every move of a subscription as a pure function of its state and the workflow's clock: the new state, the
 * transition to append and the events to fire. The workflow decides when; these decide what (Document 3's state
 * table; the choices where it is silent are in docs/api-decisions.md, "Subscriptions").
 */
import type { BillingCycleValue } from './pricing';
import { changeDirection, prorationAmount } from './subscription-rules';
import {
  dueAt,
  type ActorInput,
  type InstrumentActionRequired,
  type SubscriptionEventName,
  type SubscriptionState,
  type TransitionInput,
  type Trigger,
} from './subscription-state';
import type { ChangeChargeBehaviorValue } from './change-charge-behavior';

export interface Move {
  state: SubscriptionState;
  transition: TransitionInput | null;
  events: SubscriptionEventName[];
  /** The instrument needs the customer (a card reported gone): payment_method.action_required, with this step. */
  actionRequired?: InstrumentActionRequired | null;
}

export interface Caller {
  triggeredBy: Trigger;
  actor?: ActorInput | null;
}

export const iso = (date: Date) => date.toISOString();

export const transition = (
  state: SubscriptionState,
  type: TransitionInput['type'],
  caller: Caller,
  extra: Partial<TransitionInput> = {},
): TransitionInput => ({
  type,
  fromStatus: state.status,
  fromOfferId: state.offerId,
  toOfferId: state.offerId,
  triggeredBy: caller.triggeredBy,
  actor: caller.actor ?? null,
  ...extra,
});

export const SYSTEM: Caller = { triggeredBy: 'system' };

/**
 * An offer change's proration not yet billed when the subscription ends (owed, or a credit): never charged or
 * paid out by the engine, but never dropped silently either — the ending transition carries it.
 */
export const unbilledProration = (state: SubscriptionState) =>
  state.pendingProration !== 0 ? { unbilled_proration: state.pendingProration } : {};

// ---- operations --------------------------------------------------------------------------------------------

export function cancel(
  state: SubscriptionState,
  input: { atPeriodEnd: boolean; reason: string | null },
  caller: Caller,
  now: Date,
): Move {
  if (input.atPeriodEnd) {
    // An override's new period not yet billed is charged first: the cancellation then ends that period.
    const due = dueAt(state, state.nextDueIndex);
    const periodEnd =
      due && due.getTime() < Date.parse(state.periodEnd) ? iso(dueAt(state, state.nextDueIndex + 1)!) : state.periodEnd;
    return {
      state: { ...state, cancelAtPeriodEnd: true, cancellationReason: input.reason },
      // Document 3: "to_offer_id (null on cancellation)" — the scheduled one too.
      transition: transition(state, 'cancellation', caller, {
        toOfferId: null,
        reason: input.reason,
        metadata: { at_period_end: true, effective_at: state.status === 'trialing' ? state.trialEnd : periodEnd },
      }),
      events: [],
    };
  }
  return {
    state: {
      ...state,
      status: 'cancelled',
      cancelledAt: iso(now),
      cancellationReason: input.reason,
      cancelAtPeriodEnd: false,
    },
    transition: transition(state, 'cancellation', caller, {
      toOfferId: null,
      reason: input.reason,
      metadata: { at_period_end: false, ...unbilledProration(state) },
    }),
    events: ['subscription.cancelled'],
  };
}

/** Takes back a scheduled cancellation. */
export function reactivate(state: SubscriptionState, caller: Caller): Move {
  return {
    state: { ...state, cancelAtPeriodEnd: false, cancellationReason: null },
    transition: transition(state, 'reactivation', caller),
    events: [],
  };
}

export function pause(state: SubscriptionState, reason: string | null, caller: Caller): Move {
  const pausedFrom = state.status === 'trialing' ? 'trialing' : 'active';
  return {
    state: { ...state, status: 'paused', pausedFrom },
    transition: transition(state, 'pause', caller, { reason }),
    events: ['subscription.paused'],
  };
}

/**
 * Back to the state the pause interrupted when its date has not passed (a running trial, a period still paid
 * for); otherwise active and re-anchored at the resume instant, so the next cycle is charged now.
 */
export function resume(state: SubscriptionState, caller: Caller, now: Date): Move {
  const base: SubscriptionState = { ...state, pausedFrom: null };
  let next: SubscriptionState;
  if (state.pausedFrom === 'trialing' && state.trialEnd && Date.parse(state.trialEnd) > now.getTime()) {
    next = { ...base, status: 'trialing' };
  } else {
    const due = state.pausedFrom === 'trialing' ? null : dueAt(state, state.nextDueIndex);
    next =
      due && due.getTime() > now.getTime()
        ? { ...base, status: 'active' }
        : { ...base, status: 'active', anchorAt: iso(now), nextDueIndex: 0 };
  }
  return {
    state: next,
    transition: transition(state, 'resume', caller),
    events: ['subscription.resumed', 'subscription.reactivated'],
  };
}

export interface TargetOffer {
  offerId: string;
  productId: string;
  productFamilyId: string | null;
  amount: number;
  currency: string;
  billingCycle: BillingCycleValue;
  customDays: number | null;
  cycleLimit: number | null;
  behavior: ChangeChargeBehaviorValue;
}

/**
 * next_renew: the new price from the next renewal on. prorated: the difference for the rest of the period is
 * added to (or credited against) the next renewal; when the billing cycle changes, the unused time of the old offer
 * is credited and the new offer's first period starts now (charged at once, less the credit), so both plans are
 * paid for exactly the time they run. override: a new period starts now, charged in full at once. A trial keeps
 * running on the new offer whatever the behaviour. In dunning nothing of the current period was paid: the next
 * retry charges the new offer, with no proration. Otherwise a changed cycle re-anchors at the period end.
 */
export function changeOffer(state: SubscriptionState, target: TargetOffer, caller: Caller, now: Date): Move {
  // target.amount is the new offer's unit price: the subscription keeps the units it was sold.
  const amount = target.amount * (state.quantity ?? 1);
  const direction = changeDirection(state.amount, amount);
  const cycleChanged = target.billingCycle !== state.billingCycle || target.customDays !== state.customDays;
  // Paused, a changed cycle starts at the period end: the old offer's remaining time is still to be used.
  const prorated =
    target.behavior === 'prorated' && (state.status === 'active' || (state.status === 'paused' && !cycleChanged));
  const proration = prorated
    ? prorationAmount({
        fromAmount: state.amount,
        // Across cycles the per-cycle prices are not comparable: only the old offer's unused time is credited.
        toAmount: cycleChanged ? 0 : amount,
        periodStart: new Date(state.periodStart),
        periodEnd: new Date(state.periodEnd),
        at: now,
      })
    : 0;
  let next: SubscriptionState = {
    ...state,
    offerId: target.offerId,
    productId: target.productId,
    productFamilyId: target.productFamilyId,
    amount,
    currency: target.currency,
    billingCycle: target.billingCycle,
    customDays: target.customDays,
    cycleLimit: target.cycleLimit,
    pendingProration: state.pendingProration + proration,
  };
  const startsNow = state.status === 'active' && (target.behavior === 'override' || (prorated && cycleChanged));
  if (startsNow) {
    next = { ...next, anchorAt: iso(now), nextDueIndex: 0 };
  } else if (cycleChanged && state.status !== 'trialing') {
    next = { ...next, anchorAt: state.periodEnd, nextDueIndex: 0 };
  }
  return {
    state: next,
    transition: transition(state, direction, caller, {
      toOfferId: target.offerId,
      metadata: {
        change_charge_behavior: target.behavior,
        ...(target.behavior === 'prorated' ? { proration_amount: proration } : {}),
      },
    }),
    events: [direction === 'upgrade' ? 'subscription.upgraded' : 'subscription.downgraded'],
  };
}

/** A new instrument; in dunning the next retry runs at once on it. */
export function changePaymentInstrument(
  state: SubscriptionState,
  paymentInstrumentId: string,
  caller: Caller,
  now: Date,
): Move {
  const next: SubscriptionState = {
    ...state,
    paymentInstrumentId,
    retryNowAt: state.status === 'dunning' ? iso(now) : state.retryNowAt,
  };
  return {
    state: next,
    transition: transition(state, 'payment_method_change', caller, {
      metadata: {
        from_payment_instrument_id: state.paymentInstrumentId,
        to_payment_instrument_id: paymentInstrumentId,
      },
    }),
    events: ['subscription.payment_method_changed'],
  };
}
