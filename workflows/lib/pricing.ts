/**
 * Pure pricing rules of Document 2 ("First-charge rules") and the billing calendar. Deterministic and free of
 * imports: the subscription workflow runs this inside the Temporal sandbox, and the API uses it for display.
 * Money is integer minor units throughout; dates are computed in UTC.
 */

export const BILLING_CYCLE_VALUES = [
  'daily',
  'biweekly',
  'monthly',
  'quarterly',
  'half_yearly',
  'yearly',
  'custom',
  'none',
] as const;
export type BillingCycleValue = (typeof BILLING_CYCLE_VALUES)[number];

// ---- first charge --------------------------------------------------------------------------------

export interface FirstCycleInput {
  /** The offer's free_trial. */
  freeTrial: boolean;
  /** The offer's trial_days; at least 1 when freeTrial, ignored otherwise. */
  trialDays: number | null;
  /** The offer's setup_charge: only then does firstChargeAmount count. */
  setupCharge: boolean;
  /** The price's amount (standard, recurring), minor units. */
  amount: number;
  /** The price's first_charge_amount; null = the standard amount. */
  firstChargeAmount: number | null;
}

export type FirstCycleKind =
  /** No trial, the first cycle costs the standard amount. */
  | 'standard'
  /** No trial, setup_charge prices the first cycle with first_charge_amount (0 = card validation only). */
  | 'setup_price'
  /** Free trial: nothing charged, the card is enrolled with a zero-amount validation. */
  | 'trial_validation'
  /** Free trial plus a joining fee (0 < first_charge_amount < amount) charged up front. */
  | 'trial_with_joining_fee'
  /** Free trial offer whose first_charge_amount >= amount: not a trial, the first cycle is prepaid. */
  | 'prepaid_first_cycle';

export interface FirstCycleCharge {
  kind: FirstCycleKind;
  /** Charged when the subscription starts, minor units. */
  chargeNow: number;
  /** True when nothing is charged up front: the card is enrolled through a zero-amount validation. */
  cardValidation: boolean;
  /** Length of the trial; 0 when the subscription does not start in a trial. */
  trialDays: number;
  /** The status the subscription starts in. */
  initialStatus: 'trialing' | 'active';
  /** What every later cycle costs (the standard amount). */
  recurringAmount: number;
}

function assertMinorUnits(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer (minor units)`);
}

/**
 * The decision table of Document 2's first-charge rules (fca = first_charge_amount, A = amount):
 *
 * | free_trial | setup_charge | fca              | kind                   | charge now | trial      | starts   |
 * |------------|--------------|------------------|------------------------|------------|------------|----------|
 * | false      | false        | any (ignored)    | standard               | A          | 0          | active   |
 * | false      | true         | null             | standard               | A          | 0          | active   |
 * | false      | true         | n >= 0           | setup_price            | n          | 0          | active   |
 * | true       | false        | any (ignored)    | trial_validation       | 0          | trial_days | trialing |
 * | true       | true         | null or 0        | trial_validation       | 0          | trial_days | trialing |
 * | true       | true         | 0 < n < A        | trial_with_joining_fee | n          | trial_days | trialing |
 * | true       | true         | n > 0 and n >= A | prepaid_first_cycle    | n          | 0          | active   |
 *
 * Whenever nothing is charged up front (charge now = 0) the card is enrolled by a zero-amount validation
 * ("0 means card-validation-only first charge"). A prepaid first cycle is billed again one cycle later; a
 * trial is followed by the first standard charge at its end.
 */
export function firstCycleCharge(input: FirstCycleInput): FirstCycleCharge {
  const { freeTrial, trialDays, setupCharge, amount, firstChargeAmount } = input;
  assertMinorUnits('amount', amount);
  if (firstChargeAmount !== null) assertMinorUnits('firstChargeAmount', firstChargeAmount);
  // first_charge_amount only counts when the offer has setup_charge.
  const fca = setupCharge ? firstChargeAmount : null;
  const paid = (kind: FirstCycleKind, chargeNow: number): FirstCycleCharge => ({
    kind,
    chargeNow,
    cardValidation: chargeNow === 0,
    trialDays: 0,
    initialStatus: 'active',
    recurringAmount: amount,
  });

  if (!freeTrial) return fca === null ? paid('standard', amount) : paid('setup_price', fca);

  if (trialDays === null || !Number.isSafeInteger(trialDays) || trialDays < 1) {
    throw new RangeError('trialDays must be an integer of at least 1 when freeTrial is true');
  }
  if (fca !== null && fca > 0) {
    if (fca >= amount) return paid('prepaid_first_cycle', fca);
    return {
      kind: 'trial_with_joining_fee',
      chargeNow: fca,
      cardValidation: false,
      trialDays,
      initialStatus: 'trialing',
      recurringAmount: amount,
    };
  }
  return {
    kind: 'trial_validation',
    chargeNow: 0,
    cardValidation: true,
    trialDays,
    initialStatus: 'trialing',
    recurringAmount: amount,
  };
}

// ---- billing calendar ----------------------------------------------------------------------------

const DAY_MS = 86_400_000;

/** Cycles measured in days (fixed length in UTC) or in calendar months. */
function periodOf(cycle: BillingCycleValue, customDays: number | null): { days: number } | { months: number } | null {
  switch (cycle) {
    case 'daily':
      return { days: 1 };
    case 'biweekly':
      return { days: 14 };
    case 'monthly':
      return { months: 1 };
    case 'quarterly':
      return { months: 3 };
    case 'half_yearly':
      return { months: 6 };
    case 'yearly':
      return { months: 12 };
    case 'custom':
      if (customDays === null || !Number.isSafeInteger(customDays) || customDays < 1) {
        throw new RangeError('customDays must be an integer of at least 1 for the custom cycle');
      }
      return { days: customDays };
    case 'none':
      return null;
    default:
      throw new RangeError(`unknown billing cycle: ${String(cycle)}`);
  }
}

const daysInMonthUtc = (year: number, monthIndex: number): number =>
  new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();

/**
 * anchor + `months` calendar months in UTC, keeping the time of day; the day of month is clamped to the
 * target month's length (Jan 31 + 1 month = Feb 28, or Feb 29 in a leap year).
 */
export function addMonthsClamped(anchor: Date, months: number): Date {
  const totalMonths = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + months;
  const year = Math.floor(totalMonths / 12);
  const month = totalMonths - year * 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonthUtc(year, month));
  return new Date(
    Date.UTC(
      year,
      month,
      day,
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}

/**
 * The boundary `periods` cycles after the anchor (periods = 0 is the anchor itself), always computed from
 * the anchor, never by adding to the previous boundary, so a clamped February never shortens later months.
 * null for billing_cycle none (no renewal).
 */
export function addBillingPeriods(
  anchor: Date,
  cycle: BillingCycleValue,
  customDays: number | null,
  periods: number,
): Date | null {
  if (Number.isNaN(anchor.getTime())) throw new RangeError('anchor must be a valid date');
  if (!Number.isSafeInteger(periods) || periods < 0) throw new RangeError('periods must be a non-negative integer');
  const period = periodOf(cycle, customDays);
  if (period === null) return null;
  if ('days' in period) return new Date(anchor.getTime() + periods * period.days * DAY_MS);
  return addMonthsClamped(anchor, periods * period.months);
}

/**
 * When the next charge falls due, `cyclesElapsed` whole cycles after the anchor have been billed: the end of
 * cycle number cyclesElapsed + 1 (cyclesElapsed = 0 → the end of the first cycle). null for billing_cycle none.
 */
export function nextBillingDate(
  anchor: Date,
  cycle: BillingCycleValue,
  customDays: number | null,
  cyclesElapsed: number,
): Date | null {
  if (!Number.isSafeInteger(cyclesElapsed) || cyclesElapsed < 0)
    throw new RangeError('cyclesElapsed must be a non-negative integer');
  return addBillingPeriods(anchor, cycle, customDays, cyclesElapsed + 1);
}
