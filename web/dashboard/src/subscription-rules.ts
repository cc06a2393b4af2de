/**
 * Which operation each subscription state allows, to disable a button with the reason before the API would
 * answer 422. The API's own table is workflows/lib/subscription-rules.ts (the web app imports nothing from the
 * server, so this mirrors it and test/unit/dashboard-rules-sync.test.ts fails when they drift; the API stays the
 * judge: a refusal it answers is shown as it comes).
 */
export type Operation =
  | 'cancel_now'
  | 'cancel_at_period_end'
  | 'reactivate'
  | 'pause'
  | 'resume'
  | 'change_offer'
  | 'change_payment_instrument';

export const ALLOWED_FROM: Record<Operation, string[]> = {
  cancel_now: ['trialing', 'active', 'dunning', 'paused'],
  cancel_at_period_end: ['trialing', 'active'],
  reactivate: ['trialing', 'active'],
  pause: ['trialing', 'active'],
  resume: ['paused'],
  // In dunning the next retry charges the new offer.
  change_offer: ['trialing', 'active', 'dunning', 'paused'],
  change_payment_instrument: ['trialing', 'active', 'dunning', 'paused'],
};

const WHY: Partial<Record<Operation, Record<string, string>>> = {
  pause: {
    dunning: 'A subscription in dunning owes a payment: settle it (or cancel) before pausing.',
    paused: 'The subscription is already paused.',
  },
  cancel_at_period_end: {
    paused: 'A paused subscription has no running period to end: cancel it now, or resume it first.',
    dunning: 'A subscription in dunning has no running period to end: cancel it now instead.',
  },
  resume: {
    active: 'Only a paused subscription can be resumed.',
    trialing: 'Only a paused subscription can be resumed.',
  },
};

/** null when allowed; otherwise why not, in words a merchant understands. */
export function whyNot(sub: { status: string; cancel_at_period_end: boolean }, operation: Operation): string | null {
  if (sub.status === 'cancelled' || sub.status === 'expired') {
    return `The subscription is ${sub.status}; the customer subscribes again instead.`;
  }
  if (!ALLOWED_FROM[operation].includes(sub.status)) {
    return WHY[operation]?.[sub.status] ?? `Not possible while the subscription is ${sub.status}.`;
  }
  if (operation === 'reactivate' && !sub.cancel_at_period_end)
    return 'No cancellation is scheduled, so there is nothing to take back.';
  if (operation === 'cancel_at_period_end' && sub.cancel_at_period_end)
    return 'The cancellation at period end is already scheduled.';
  return null;
}

export const BEHAVIOURS: Record<string, string> = {
  next_renew: 'Nothing is charged now; the new price applies from the next renewal.',
  prorated: 'The difference for the rest of the current period is charged (or credited) now, prorated by days.',
  override: "The new offer's full price is charged now and a new period starts today.",
};
