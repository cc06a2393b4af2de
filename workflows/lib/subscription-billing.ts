/**
 * The moves the workflow makes on its own clock: when it wakes next, and what a paid or declined charge, a
 * scheduled cancellation or a reached cycle limit do to the subscription (Document 3's state table).
 */
import { dunningRetryAt } from './subscription-rules';
import { dueAt, type SubscriptionState } from './subscription-state';
import { SYSTEM, iso, transition, type Move } from './subscription-moves';

export type WakeReason =
  'trial_end' | 'renewal' | 'dunning_retry' | 'period_end_cancel' | 'cycle_limit' | 'hold_recheck';

export interface Wake {
  at: Date;
  reason: WakeReason;
}

/** When the workflow must next act on its own, and why (null: it waits for an operation). */
export function nextWake(state: SubscriptionState, scheduleDays: readonly number[]): Wake | null {
  if (state.holdCheckAt && state.status !== 'paused' && !state.cancelAtPeriodEnd) {
    return { at: new Date(state.holdCheckAt), reason: 'hold_recheck' };
  }
  switch (state.status) {
    case 'trialing':
      if (!state.trialEnd) return null;
      return { at: new Date(state.trialEnd), reason: state.cancelAtPeriodEnd ? 'period_end_cancel' : 'trial_end' };
    case 'active': {
      if (state.cancelAtPeriodEnd) return { at: new Date(state.periodEnd), reason: 'period_end_cancel' };
      const due = dueAt(state, state.nextDueIndex);
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

/** A renewal (or trial conversion, or dunning retry) was paid: the period advances on the calendar. */
export function chargeSucceeded(state: SubscriptionState, orderId: string | null, charged: number): Move {
  // A trial converts on the day it ends: the calendar is anchored there.
  const base =
    state.status === 'trialing' && state.trialEnd ? { ...state, anchorAt: state.trialEnd, nextDueIndex: 0 } : state;
  const start = dueAt(base, base.nextDueIndex)!;
  const end = dueAt(base, base.nextDueIndex + 1)!;
  const owed = state.amount + state.pendingProration;
  const next: SubscriptionState = {
    ...base,
    status: 'active',
    periodStart: iso(start),
    periodEnd: iso(end),
    nextDueIndex: base.nextDueIndex + 1,
    cyclesCompleted: state.cyclesCompleted + 1,
    dunningStartedAt: null,
    dunningAttempts: 0,
    // A credit larger than the charge carries over to the next cycle.
    pendingProration: Math.min(owed - charged, 0),
    retryNowAt: null,
  };
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

/** A renewal or retry was declined: into dunning, on to the next retry, or cancelled when none is left. */
export function chargeFailed(
  state: SubscriptionState,
  orderId: string | null,
  now: Date,
  scheduleDays: readonly number[],
  declineCode: string | null,
): Move {
  const metadata = { outcome: 'declined', decline_code: declineCode };
  if (state.status !== 'dunning') {
    const next: SubscriptionState = { ...state, status: 'dunning', dunningStartedAt: iso(now), dunningAttempts: 0 };
    if (!dunningRetryAt(now, 0, scheduleDays)) return exhausted(next, orderId, now, metadata);
    return {
      state: next,
      transition: transition(state, 'dunning_entry', SYSTEM, { orderId, metadata }),
      events: ['subscription.dunning'],
    };
  }
  const next: SubscriptionState = { ...state, dunningAttempts: state.dunningAttempts + 1, retryNowAt: null };
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
      metadata,
    }),
    events: ['subscription.cancelled'],
  };
}

/** The scheduled cancellation takes effect at the period end (the trial's end while trialing): cancelled_at is that instant. */
export function periodEndCancel(state: SubscriptionState): Move {
  const endedAt = state.status === 'trialing' && state.trialEnd ? state.trialEnd : state.periodEnd;
  return {
    state: { ...state, status: 'cancelled', cancelledAt: endedAt, cancelAtPeriodEnd: false },
    transition: transition(state, 'cancellation', SYSTEM, { toOfferId: null, reason: state.cancellationReason }),
    events: ['subscription.cancelled'],
  };
}

/** The cycle limit is reached at the next due date (renew_after_cycle_limit: domain/subscriptions/subscriptions.cycle-limit.ts). */
export function expire(state: SubscriptionState): Move {
  return {
    state: { ...state, status: 'expired' },
    transition: transition(state, 'expiration', SYSTEM),
    events: ['subscription.expired'],
  };
}

const DAY_MS = 86_400_000;

/** A charge came due while billing is held: nothing is charged or cancelled; the workflow looks again in a day. */
export function holdBilling(state: SubscriptionState, now: Date): SubscriptionState {
  return { ...state, holdCheckAt: iso(new Date(now.getTime() + DAY_MS)) };
}

/**
 * Billing is possible again: the period is re-anchored at this instant (a trial ends now), so the cycle charged
 * next starts now and the calendar runs forward from here. A dunning keeps its own retry schedule.
 */
export function releaseHold(state: SubscriptionState, now: Date): SubscriptionState {
  const released = { ...state, holdCheckAt: null };
  if (state.status === 'trialing') return { ...released, trialEnd: iso(now) };
  if (state.status === 'active') return { ...released, anchorAt: iso(now), nextDueIndex: 0 };
  return released;
}
