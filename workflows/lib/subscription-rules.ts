/**
 * The subscription state table (Document 3, "Subscription") as pure rules: which operation each state allows,
 * the dunning calendar and offer-change pricing. No imports on purpose: the subscription workflow's Update
 * validators run this inside the Temporal sandbox, and the API uses the same answers for its 422s.
 */

export const SUBSCRIPTION_STATUS_VALUES = ['trialing', 'active', 'dunning', 'paused', 'cancelled', 'expired'] as const;
export type SubscriptionStatusValue = (typeof SUBSCRIPTION_STATUS_VALUES)[number];

/** Live = not terminal. A subscription with a scheduled cancellation is still live until it takes effect. */
export const isLive = (status: SubscriptionStatusValue) => status !== 'cancelled' && status !== 'expired';

export type SubscriptionOperation =
  | 'cancel_now'
  | 'cancel_at_period_end'
  | 'reactivate'
  | 'pause'
  | 'resume'
  | 'change_offer'
  | 'change_payment_instrument';

/** A second live subscription to a plan (409; also the activity failure type when a first charge loses the race). */
export const SUBSCRIPTION_ALREADY_EXISTS = 'SUBSCRIPTION_ALREADY_EXISTS';

/** The code the API answers (422 business_rule_error) for an operation the state forbids. */
export const INVALID_STATE_TRANSITION = 'INVALID_STATE_TRANSITION';

/** The code the API answers (422 business_rule_error) for a change to the offer the subscription is already on. */
export const OFFER_UNCHANGED = 'OFFER_UNCHANGED';

export interface OperationRefusal {
  code: typeof INVALID_STATE_TRANSITION | typeof OFFER_UNCHANGED | typeof AUTHENTICATION_LINK_INVALID;
  message: string;
}

/** Where the spec says "not shown", these are our choices (docs/api-decisions.md, "Subscriptions"). */
export const ALLOWED_FROM: Record<SubscriptionOperation, readonly SubscriptionStatusValue[]> = {
  cancel_now: ['trialing', 'active', 'dunning', 'paused'],
  // Deferring to a period end needs a period that is running: not while paused or in dunning.
  cancel_at_period_end: ['trialing', 'active'],
  reactivate: ['trialing', 'active'],
  // A subscription in dunning owes a payment: it is settled (or cancelled) first, never paused around the debt.
  pause: ['trialing', 'active'],
  resume: ['paused'],
  // Every live state (Document 3): in dunning the next retry charges the new offer.
  change_offer: ['trialing', 'active', 'dunning', 'paused'],
  change_payment_instrument: ['trialing', 'active', 'dunning', 'paused'],
};

/** null when the operation may run in this state; otherwise why not. */
/** While a renewal charge awaits the provider's verdict, only these may run (docs/api-decisions.md). */
const ALLOWED_WHILE_SETTLING: readonly SubscriptionOperation[] = ['cancel_now', 'change_payment_instrument'];

export function refuseOperation(
  state: { status: SubscriptionStatusValue; cancelAtPeriodEnd: boolean; settling?: { transactionId: string } | null },
  operation: SubscriptionOperation,
): OperationRefusal | null {
  const refuse = (message: string): OperationRefusal => ({ code: INVALID_STATE_TRANSITION, message });
  if (!isLive(state.status)) {
    return refuse(
      `A subscription that is ${state.status} cannot be changed; the customer starts a new subscription instead`,
    );
  }
  if (!ALLOWED_FROM[operation].includes(state.status)) {
    return refuse(`The operation ${operation} is not allowed while the subscription is ${state.status}`);
  }
  if (state.settling && !ALLOWED_WHILE_SETTLING.includes(operation)) {
    return refuse(
      `A renewal payment (${state.settling.transactionId}) is awaiting the provider's verdict; ${operation} is ` +
        'possible once it is settled (cancel now and changing the payment instrument are possible meanwhile)',
    );
  }
  if (operation === 'reactivate' && !state.cancelAtPeriodEnd) {
    return refuse('The subscription has no scheduled cancellation to take back');
  }
  if (operation === 'cancel_at_period_end' && state.cancelAtPeriodEnd) {
    return refuse('The subscription is already scheduled to cancel at the end of its period');
  }
  return null;
}

/**
 * A change-offer to the offer the subscription is on is no change. The workflow refuses it too (not only the API,
 * from a row that may be a move behind): a repeated override would otherwise start and bill another full period.
 */
export function refuseOfferChange(state: { offerId: string }, toOfferId: string): OperationRefusal | null {
  if (toOfferId !== state.offerId) return null;
  return { code: OFFER_UNCHANGED, message: 'The subscription is already on this offer' };
}

// ---- dunning ------------------------------------------------------------------------------------------------

/** Retries 1, 3, 5 and 7 days after the failed renewal (dunning_started_at); configurable per deployment. */
/** A renewal authentication link that may not start a charge (used, superseded, expired, or its renewal is over). */
export const AUTHENTICATION_LINK_INVALID = 'AUTHENTICATION_LINK_INVALID';

/**
 * Whether link `linkId` may start the customer's charge now: it is the subscription's current link, unused and
 * unexpired, the subscription is still in dunning for that renewal, and no charge of it awaits a verdict (a dunning
 * retry at the provider: the renewal is not charged twice at once).
 */
export function refuseAuthentication(
  state: {
    status: SubscriptionStatusValue;
    cyclesCompleted: number;
    settling?: { transactionId: string } | null;
    authentication?: { linkId: string; cycleNumber: number; expiresAt: string; used: boolean } | null;
  },
  linkId: string,
  now: number,
): OperationRefusal | null {
  const link = state.authentication;
  const refusal = (message: string): OperationRefusal => ({ code: AUTHENTICATION_LINK_INVALID, message });
  if (!link || link.linkId !== linkId || state.status !== 'dunning' || link.cycleNumber !== state.cyclesCompleted + 1)
    return refusal('This link no longer applies: the payment was made or the subscription changed since');
  if (link.used) return refusal('This link was used already');
  if (now >= Date.parse(link.expiresAt)) return refusal('This link has expired');
  if (state.settling) return refusal('A payment of this renewal is in progress; try again in a few minutes');
  return null;
}

export const DEFAULT_DUNNING_SCHEDULE_DAYS: readonly number[] = [1, 3, 5, 7];

const DAY_MS = 86_400_000;

/** When retry number `retriesDone + 1` runs, or null when the schedule is exhausted. */
export function dunningRetryAt(startedAt: Date, retriesDone: number, scheduleDays: readonly number[]): Date | null {
  const days = scheduleDays[retriesDone];
  return days === undefined ? null : new Date(startedAt.getTime() + days * DAY_MS);
}

/** A decline that says the card itself is gone: retrying it is pointless until the instrument changes. */
export const CARD_GONE_CODES: ReadonlySet<string> = new Set([
  // Refused before any provider call: the saved instrument was revoked (Document 3: it cannot be charged).
  'payment_instrument_revoked',
  'lost_or_stolen',
  'expired_card',
  // Provider codes as histories recorded before the one vocabulary carry them (replayed as they ran).
  'stolen_card',
  'lost_card',
  'pickup_card',
]);

// ---- offer changes -----------------------------------------------------------------------------------------

/**
 * Lower-value offer = downgrade ("Moved to a lower-value offer"); higher or equal = upgrade (amounts compared per
 * cycle, same currency). Document 3 records every offer change as upgrade or downgrade; a move at the same price
 * loses the customer nothing, so it is not reported as a downgrade (receivers revoke features on those).
 */
export const changeDirection = (fromAmount: number, toAmount: number): 'upgrade' | 'downgrade' =>
  toAmount < fromAmount ? 'downgrade' : 'upgrade';

/**
 * The prorated difference for the rest of the period, in minor units (positive: owed by the customer, added to the
 * next renewal charge; negative: a credit taken off it). Rounded half away from zero.
 */
export function prorationAmount(input: {
  fromAmount: number;
  toAmount: number;
  periodStart: Date;
  periodEnd: Date;
  at: Date;
}): number {
  const length = input.periodEnd.getTime() - input.periodStart.getTime();
  if (length <= 0) return 0;
  const remaining = Math.min(Math.max(input.periodEnd.getTime() - input.at.getTime(), 0), length);
  const raw = ((input.toAmount - input.fromAmount) * remaining) / length;
  return Math.sign(raw) * Math.round(Math.abs(raw));
}
