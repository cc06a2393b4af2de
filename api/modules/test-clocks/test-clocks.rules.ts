/**
 * How much work a test clock may ask of the worker and Temporal every tenant shares. An advance runs every renewal
 * due on the clock's subscriptions, each a charge workflow with its attempts, events and webhooks, so each of the
 * factors is capped: clocks per merchant, customers per clock, how far an advance moves the clock, how far the
 * clock may ever go, and the renewals one advance runs (docs/api-decisions.md "Test clocks are bounded work").
 */
import { addBillingPeriods, addMonthsClamped, type BillingCycleValue } from '../../../workflows/lib/pricing';

/** Live (not deleted) clocks of one merchant. */
export const MAX_TEST_CLOCKS_PER_MERCHANT = 10;
/** Customers attached to one clock (each may hold subscriptions the clock's advances bill). */
export const MAX_CUSTOMERS_PER_TEST_CLOCK = 10;

export interface AdvanceLimits {
  readonly maxAdvanceMonths: number;
  readonly maxSpanMonths: number;
  readonly renewalsPerAdvance: number;
}

/**
 * The latest time one advance may move the clock to: `maxAdvanceMonths` past where it is, and never more than
 * `maxSpanMonths` past where it was created. `bound` names the limit that sets it.
 */
export function advanceHorizon(
  clock: { frozenTime: Date; startTime: Date },
  limits: AdvanceLimits,
): { latest: Date; bound: 'advance' | 'span'; limitMonths: number } {
  const byAdvance = addMonthsClamped(clock.frozenTime, limits.maxAdvanceMonths);
  const bySpan = addMonthsClamped(clock.startTime, limits.maxSpanMonths);
  return bySpan < byAdvance
    ? { latest: bySpan, bound: 'span', limitMonths: limits.maxSpanMonths }
    : { latest: byAdvance, bound: 'advance', limitMonths: limits.maxAdvanceMonths };
}

/** A subscription's calendar as its row holds it: charge n falls due at anchor + n cycles. */
export interface RenewalCalendar {
  billingAnchorAt: Date;
  billingCycle: BillingCycleValue;
  customBillingDays: number | null;
  nextDueIndex: number;
}

/**
 * The renewals falling due on these calendars from each one's next charge up to `to`: what an advance to `to` bills
 * (an upper bound: a cycle limit, a pause or a cancellation met on the way bills less). Finite because `to` is
 * within the clock's horizon and a cycle lasts at least a day.
 */
export function renewalsDueBy(calendars: readonly RenewalCalendar[], to: Date): number {
  let renewals = 0;
  for (const calendar of calendars) {
    for (let index = calendar.nextDueIndex; ; index += 1) {
      const due = addBillingPeriods(calendar.billingAnchorAt, calendar.billingCycle, calendar.customBillingDays, index);
      if (!due || due > to) break;
      renewals += 1;
    }
  }
  return renewals;
}
