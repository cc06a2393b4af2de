/**
 * The moves the workflow makes on its own clock: when it wakes next, and what a paid or declined charge, a
 * scheduled cancellation or a reached cycle limit do to the subscription (Document 3's state table).
 */
import { dunningRetryAt } from './subscription-rules';
import { dueAt, type BilledCharge, type SubscriptionState } from './subscription-state';
import { SYSTEM, iso, transition, unbilledProration, type Move } from './subscription-moves';

export type WakeReason =
  'trial_end' | 'renewal' | 'dunning_retry' | 'period_end_cancel' | 'cycle_limit' | 'hold_recheck' | 'settlement_check';

export interface Wake {
  at: Date;
  reason: WakeReason;
}

/** The wakes that charge the customer. */
const BILLING_WAKES: ReadonlySet<WakeReason> = new Set(['trial_end', 'renewal', 'dunning_retry']);

/** When the workflow must next act on its own, and why (null: it waits for an operation). */
export function nextWake(state: SubscriptionState, scheduleDays: readonly number[]): Wake | null {
  const wake = scheduledWake(state, scheduleDays);
  // After a charge refused for an outage, nothing is charged before its retry is due.
  const retryAt = state.billingRetry ? Date.parse(state.billingRetry.at) : null;
  if (wake && retryAt !== null && BILLING_WAKES.has(wake.reason) && wake.at.getTime() < retryAt) {
    return { at: new Date(retryAt), reason: wake.reason };
  }
  return wake;
}

function scheduledWake(state: SubscriptionState, scheduleDays: readonly number[]): Wake | null {
  // A renewal charge awaiting its verdict comes first, whatever the status: its outcome decides what is next.
  if (state.settling) return { at: new Date(state.settling.checkAt), reason: 'settlement_check' };
  if (state.holdCheckAt && state.status !== 'paused' && !state.cancelAtPeriodEnd) {
    return { at: new Date(state.holdCheckAt), reason: 'hold_recheck' };
  }
  switch (state.status) {
    case 'trialing':
      if (!state.trialEnd) return null;
      return { at: new Date(state.trialEnd), reason: state.cancelAtPeriodEnd ? 'period_end_cancel' : 'trial_end' };
    case 'active': {
      const due = dueAt(state, state.nextDueIndex);
      // A charge due before the period ends (an override's new period) is billed first; a scheduled cancellation
      // then takes effect at the end of the period it paid.
      const dueFirst = due !== null && due.getTime() < Date.parse(state.periodEnd);
      if (state.cancelAtPeriodEnd && !dueFirst) return { at: new Date(state.periodEnd), reason: 'period_end_cancel' };
      if (!due) return null;
      const limitReached = state.cycleLimit !== null && state.cyclesCompleted >= state.cycleLimit;
      return { at: due, reason: limitReached ? 'cycle_limit' : 'renewal' };
    }
    case 'dunning': {
      if (state.retryNowAt) return { at: new Date(state.retryNowAt), reason: 'dunning_retry' };
      if (!state.dunningStartedAt) return null;
      const at = dunningRetryAt(new Date(state.dunningStartedAt), state.dunningAttempts, scheduleDays);
      return at ? { at, reason: 'dunning_retry' } : null;
    }
    default:
      return null;
  }
}

/**
 * A renewal (or trial conversion, or dunning retry) was paid: the period advances on the calendar. `billed` is what
 * the charge included; prorations added while it ran stay pending. Missed cycles are never caught up: when the paid
 * period would already be over (a dunning that recovered late on a short cycle), it starts now instead.
 */
export function chargeSucceeded(state: SubscriptionState, billed: BilledCharge, now: Date): Move {
  // A trial converts on the day it ends: the calendar is anchored there.
  let base: SubscriptionState =
    state.status === 'trialing' && state.trialEnd ? { ...state, anchorAt: state.trialEnd, nextDueIndex: 0 } : state;
  if (dueAt(base, base.nextDueIndex + 1)!.getTime() <= now.getTime()) {
    base = { ...base, anchorAt: iso(now), nextDueIndex: 0 };
  }
  const start = dueAt(base, base.nextDueIndex)!;
  const end = dueAt(base, base.nextDueIndex + 1)!;
  // A credit larger than the charge carries over to the next cycle.
  const carried = Math.min(billed.amount + billed.proration - billed.charged, 0);
  const next: SubscriptionState = {
    ...base,
    status: 'active',
    periodStart: iso(start),
    periodEnd: iso(end),
    nextDueIndex: base.nextDueIndex + 1,
    cyclesCompleted: state.cyclesCompleted + 1,
    dunningStartedAt: null,
    dunningAttempts: 0,
    pendingProration: state.pendingProration - billed.proration + carried,
    retryNowAt: null,
    settling: null,
    billingRetry: null,
  };
  const orderId = billed.orderId;
  if (state.status === 'trialing') {
    return {
      state: next,
      transition: transition(state, 'trial_conversion', SYSTEM, { orderId }),
      events: ['subscription.renewed'],
    };
  }
  if (state.status === 'dunning') {
    return {
      state: next,
      transition: transition(state, 'dunning_retry', SYSTEM, { orderId, metadata: { outcome: 'succeeded' } }),
      events: ['subscription.renewed', 'subscription.reactivated'],
    };
  }
  return { state: next, transition: null, events: ['subscription.renewed'] };
}

/**
 * A renewal (or trial conversion, or dunning retry) whose charge stayed unknown past its deadline, escalated to the
 * merchant as in doubt (transaction.in_doubt): the provider may have taken it, so it is not charged again (that could
 * charge the customer twice), and no issuer declined it, so it is no dunning step. The cycle counts as billed in doubt:
 * the calendar advances as for a paid one (cycles_completed and the cycle limit count it, so a customer who did pay is
 * never billed an extra cycle), without subscription.renewed; a trial conversion or dunning retry keeps its transition,
 * marked outcome in_doubt (and a dunning that ends here its subscription.reactivated).
 */
export function chargeInDoubt(state: SubscriptionState, billed: BilledCharge, now: Date): Move {
  const paid = chargeSucceeded(state, billed, now);
  return {
    state: paid.state,
    transition: paid.transition && {
      ...paid.transition,
      metadata: { ...paid.transition.metadata, outcome: 'in_doubt' },
    },
    events: paid.events.filter((event) => event !== 'subscription.renewed'),
  };
}

/**
 * A renewal or retry was declined: into dunning, on to the next retry, or cancelled when none is left. A new
 * instrument given while the declined charge (on `chargedInstrumentId`) awaited its verdict is tried at once.
 */
export function chargeFailed(
  state: SubscriptionState,
  orderId: string | null,
  now: Date,
  scheduleDays: readonly number[],
  declineCode: string | null,
  chargedInstrumentId?: string | null,
): Move {
  const metadata = { outcome: 'declined', decline_code: declineCode };
  const newInstrument = !!chargedInstrumentId && chargedInstrumentId !== state.paymentInstrumentId;
  const retryNowAt = newInstrument ? iso(now) : null;
  if (state.status !== 'dunning') {
    const next: SubscriptionState = {
      ...state,
      status: 'dunning',
      dunningStartedAt: iso(now),
      dunningAttempts: 0,
      billingRetry: null,
      ...(newInstrument ? { retryNowAt } : {}),
    };
    if (!dunningRetryAt(now, 0, scheduleDays)) return exhausted(next, orderId, now, metadata);
    return {
      state: next,
      transition: transition(state, 'dunning_entry', SYSTEM, { orderId, metadata }),
      events: ['subscription.dunning'],
    };
  }
  const next: SubscriptionState = {
    ...state,
    dunningAttempts: state.dunningAttempts + 1,
    retryNowAt,
    billingRetry: null,
  };
  if (!dunningRetryAt(new Date(state.dunningStartedAt!), next.dunningAttempts, scheduleDays)) {
    return exhausted(next, orderId, now, metadata);
  }
  return { state: next, transition: transition(state, 'dunning_retry', SYSTEM, { orderId, metadata }), events: [] };
}

function exhausted(
  state: SubscriptionState,
  orderId: string | null,
  now: Date,
  metadata: Record<string, unknown>,
): Move {
  return {
    state: { ...state, status: 'cancelled', cancelledAt: iso(now), cancellationReason: 'dunning_exhausted' },
    transition: transition(state, 'dunning_cancelled', SYSTEM, {
      orderId,
      toOfferId: null,
      reason: 'dunning_exhausted',
      metadata: { ...metadata, ...unbilledProration(state) },
    }),
    events: ['subscription.cancelled'],
  };
}

/** The scheduled cancellation takes effect at the period end (the trial's end while trialing): cancelled_at is that instant. */
export function periodEndCancel(state: SubscriptionState): Move {
  const endedAt = state.status === 'trialing' && state.trialEnd ? state.trialEnd : state.periodEnd;
  return {
    state: { ...state, status: 'cancelled', cancelledAt: endedAt, cancelAtPeriodEnd: false },
    transition: transition(state, 'cancellation', SYSTEM, {
      toOfferId: null,
      reason: state.cancellationReason,
      ...(state.pendingProration !== 0 ? { metadata: unbilledProration(state) } : {}),
    }),
    events: ['subscription.cancelled'],
  };
}

/** The cycle limit is reached at the next due date (renew_after_cycle_limit: domain/subscriptions/subscriptions.cycle-limit.ts). */
export function expire(state: SubscriptionState): Move {
  return {
    state: { ...state, status: 'expired' },
    transition: transition(state, 'expiration', SYSTEM, {
      ...(state.pendingProration !== 0 ? { metadata: unbilledProration(state) } : {}),
    }),
    events: ['subscription.expired'],
  };
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** The waits before each retry of a charge refused for an outage (then every six hours): circuits cool down in minutes. */
const OUTAGE_RETRY_MS = [MINUTE_MS, 5 * MINUTE_MS, 15 * MINUTE_MS, 60 * MINUTE_MS];
const OUTAGE_RETRY_MAX_MS = 6 * 60 * MINUTE_MS;

/**
 * A charge was refused for a reason that is not the card's (no route with every circuit open, a processing or
 * network error, a charge that never opened): the circuit breaker protects the providers, not our books, so this is
 * no dunning step. Nothing else moves; the charge due is tried again soon, a little later each time.
 */
export function outageRetry(state: SubscriptionState, now: Date): SubscriptionState {
  const tries = state.billingRetry?.tries ?? 0;
  const wait = OUTAGE_RETRY_MS[tries] ?? OUTAGE_RETRY_MAX_MS;
  // On a test clock the outage lasts real time while the clock jumps: retries within one advance would meet it
  // again at once. The wait counts from the time the clock is advancing to, so each advance retries once at most.
  const clock = state.testClock;
  const from = clock ? Math.max(now.getTime(), Date.parse(clock.frozenTime)) : now.getTime();
  return { ...state, billingRetry: { at: iso(new Date(from + wait)), tries: tries + 1 } };
}

/** A charge came due while billing is held: nothing is charged or cancelled; the workflow looks again in a day. */
export function holdBilling(state: SubscriptionState, now: Date): SubscriptionState {
  return { ...state, holdCheckAt: iso(new Date(now.getTime() + DAY_MS)), heldSince: state.heldSince ?? iso(now) };
}

/**
 * Billing is possible again: the period is re-anchored at this instant (a trial ends now), so the cycle charged
 * next starts now and the calendar runs forward from here. A dunning's remaining retries move forward by the
 * hold's length, so the customer keeps the time the schedule promised (no burst of overdue retries).
 */
export function releaseHold(state: SubscriptionState, now: Date): SubscriptionState {
  const released = { ...state, holdCheckAt: null, heldSince: null };
  if (state.status === 'trialing') return { ...released, trialEnd: iso(now) };
  if (state.status === 'active') return { ...released, anchorAt: iso(now), nextDueIndex: 0 };
  if (state.status === 'dunning' && state.dunningStartedAt && state.heldSince) {
    const held = Math.max(0, now.getTime() - Date.parse(state.heldSince));
    return { ...released, dunningStartedAt: iso(new Date(Date.parse(state.dunningStartedAt) + held)) };
  }
  return released;
}
