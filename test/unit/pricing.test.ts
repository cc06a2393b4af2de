import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  addBillingPeriods,
  addMonthsClamped,
  firstCycleCharge,
  nextBillingDate,
  type FirstCycleInput,
} from '../../workflows/lib/pricing';

const base: FirstCycleInput = {
  freeTrial: false,
  trialDays: null,
  setupCharge: false,
  amount: 5000,
  firstChargeAmount: null,
};
const charge = (overrides: Partial<FirstCycleInput>) => firstCycleCharge({ ...base, ...overrides });
const trial = { freeTrial: true, trialDays: 14 };
const utc = (iso: string) => new Date(iso);

describe('workflows/lib/pricing firstCycleCharge (Document 2 first-charge rules)', () => {
  // One test per row of the decision table in pricing.ts.
  it('no trial, no setup charge: the standard amount, active, and first_charge_amount is ignored', () => {
    for (const firstChargeAmount of [null, 0, 100, 9000]) {
      expect(charge({ firstChargeAmount })).to.deep.equal({
        kind: 'standard',
        chargeNow: 5000,
        cardValidation: false,
        trialDays: 0,
        initialStatus: 'active',
        recurringAmount: 5000,
      });
    }
  });

  it('no trial, setup charge with a null first_charge_amount: the standard amount', () => {
    expect(charge({ setupCharge: true, firstChargeAmount: null })).to.include({
      kind: 'standard',
      chargeNow: 5000,
      initialStatus: 'active',
    });
  });

  it('no trial, setup charge: first_charge_amount prices the first cycle, later cycles cost amount', () => {
    expect(charge({ setupCharge: true, firstChargeAmount: 1990 })).to.deep.equal({
      kind: 'setup_price',
      chargeNow: 1990,
      cardValidation: false,
      trialDays: 0,
      initialStatus: 'active',
      recurringAmount: 5000,
    });
  });

  it('no trial, setup charge with first_charge_amount above amount: charged as is, active', () => {
    expect(charge({ setupCharge: true, firstChargeAmount: 12000 })).to.include({
      kind: 'setup_price',
      chargeNow: 12000,
      initialStatus: 'active',
      trialDays: 0,
    });
  });

  it('no trial, setup charge with first_charge_amount 0: a card-validation-only first charge, not a trial', () => {
    expect(charge({ setupCharge: true, firstChargeAmount: 0 })).to.deep.equal({
      kind: 'setup_price',
      chargeNow: 0,
      cardValidation: true,
      trialDays: 0,
      initialStatus: 'active',
      recurringAmount: 5000,
    });
  });

  it('free trial without setup charge: bills 0 with a zero-amount validation, whatever first_charge_amount says', () => {
    for (const firstChargeAmount of [null, 0, 1000, 5000, 9000]) {
      expect(charge({ ...trial, firstChargeAmount }), String(firstChargeAmount)).to.deep.equal({
        kind: 'trial_validation',
        chargeNow: 0,
        cardValidation: true,
        trialDays: 14,
        initialStatus: 'trialing',
        recurringAmount: 5000,
      });
    }
  });

  it('free trial with setup charge and a null or 0 first_charge_amount: bills 0 with a zero-amount validation', () => {
    for (const firstChargeAmount of [null, 0]) {
      expect(charge({ ...trial, setupCharge: true, firstChargeAmount })).to.deep.equal({
        kind: 'trial_validation',
        chargeNow: 0,
        cardValidation: true,
        trialDays: 14,
        initialStatus: 'trialing',
        recurringAmount: 5000,
      });
    }
  });

  it('free trial with setup charge and 0 < first_charge_amount < amount: the joining fee up front, the trial covers the first cycle', () => {
    expect(charge({ ...trial, setupCharge: true, firstChargeAmount: 990 })).to.deep.equal({
      kind: 'trial_with_joining_fee',
      chargeNow: 990,
      cardValidation: false,
      trialDays: 14,
      initialStatus: 'trialing',
      recurringAmount: 5000,
    });
  });

  it('free trial with setup charge and first_charge_amount equal to amount: not a trial, the first cycle is prepaid and active', () => {
    expect(charge({ ...trial, setupCharge: true, firstChargeAmount: 5000 })).to.deep.equal({
      kind: 'prepaid_first_cycle',
      chargeNow: 5000,
      cardValidation: false,
      trialDays: 0,
      initialStatus: 'active',
      recurringAmount: 5000,
    });
  });

  it('free trial with setup charge and first_charge_amount above amount: prepaid first cycle, active', () => {
    expect(charge({ ...trial, setupCharge: true, firstChargeAmount: 5001 })).to.include({
      kind: 'prepaid_first_cycle',
      chargeNow: 5001,
      trialDays: 0,
      initialStatus: 'active',
    });
  });

  it('the joining-fee boundary: amount - 1 is a trial, amount is prepaid', () => {
    expect(charge({ ...trial, setupCharge: true, firstChargeAmount: 4999 }).kind).to.equal('trial_with_joining_fee');
    expect(charge({ ...trial, setupCharge: true, firstChargeAmount: 5000 }).kind).to.equal('prepaid_first_cycle');
  });

  describe('edge cases', () => {
    it('a free offer (amount 0) without a trial charges nothing and validates the card', () => {
      expect(charge({ amount: 0 })).to.include({
        kind: 'standard',
        chargeNow: 0,
        cardValidation: true,
        initialStatus: 'active',
      });
    });

    it('a free offer (amount 0) with a trial and first_charge_amount 0 is still a trial (the fee must be above 0)', () => {
      expect(charge({ ...trial, amount: 0, setupCharge: true, firstChargeAmount: 0 })).to.include({
        kind: 'trial_validation',
        initialStatus: 'trialing',
      });
    });

    it('a free offer (amount 0) with a trial and a positive first_charge_amount is a prepaid first cycle', () => {
      expect(charge({ ...trial, amount: 0, setupCharge: true, firstChargeAmount: 100 })).to.include({
        kind: 'prepaid_first_cycle',
        chargeNow: 100,
      });
    });

    it('a one-day trial is honoured', () => {
      expect(charge({ freeTrial: true, trialDays: 1 }).trialDays).to.equal(1);
    });

    it('trialDays is reported as 0 whenever the subscription does not start in a trial, even if the offer stores one', () => {
      expect(charge({ trialDays: 30 }).trialDays).to.equal(0);
    });

    it('refuses a free trial without trial days, negative or fractional money', () => {
      expect(() => charge({ freeTrial: true, trialDays: null })).to.throw(RangeError);
      expect(() => charge({ freeTrial: true, trialDays: 0 })).to.throw(RangeError);
      expect(() => charge({ amount: -1 })).to.throw(RangeError);
      expect(() => charge({ amount: 10.5 })).to.throw(RangeError);
      expect(() => charge({ setupCharge: true, firstChargeAmount: -5 })).to.throw(RangeError);
    });
  });
});

describe('workflows/lib/pricing billing calendar', () => {
  const iso = (date: Date | null) => date?.toISOString() ?? null;

  it('daily, biweekly and custom cycles add whole UTC days from the anchor', () => {
    const anchor = utc('2026-03-28T15:30:00.000Z');
    expect(iso(nextBillingDate(anchor, 'daily', null, 0))).to.equal('2026-03-29T15:30:00.000Z');
    expect(iso(nextBillingDate(anchor, 'daily', null, 4))).to.equal('2026-04-02T15:30:00.000Z');
    expect(iso(nextBillingDate(anchor, 'biweekly', null, 0))).to.equal('2026-04-11T15:30:00.000Z');
    expect(iso(nextBillingDate(anchor, 'biweekly', null, 1))).to.equal('2026-04-25T15:30:00.000Z');
    expect(iso(nextBillingDate(anchor, 'custom', 45, 0))).to.equal('2026-05-12T15:30:00.000Z');
    expect(iso(nextBillingDate(anchor, 'custom', 45, 1))).to.equal('2026-06-26T15:30:00.000Z');
  });

  it('monthly: Jan 31 + 1 month = Feb 28, + 2 months = Mar 31 (computed from the anchor, not the clamped date)', () => {
    const anchor = utc('2027-01-31T10:00:00.000Z');
    expect(iso(nextBillingDate(anchor, 'monthly', null, 0))).to.equal('2027-02-28T10:00:00.000Z');
    expect(iso(nextBillingDate(anchor, 'monthly', null, 1))).to.equal('2027-03-31T10:00:00.000Z');
    expect(iso(nextBillingDate(anchor, 'monthly', null, 2))).to.equal('2027-04-30T10:00:00.000Z');
  });

  it('monthly in a leap year: Jan 31 + 1 month = Feb 29', () => {
    expect(iso(nextBillingDate(utc('2028-01-31T00:00:00.000Z'), 'monthly', null, 0))).to.equal(
      '2028-02-29T00:00:00.000Z',
    );
  });

  it('monthly crosses the year end', () => {
    expect(iso(nextBillingDate(utc('2026-12-15T08:00:00.000Z'), 'monthly', null, 0))).to.equal(
      '2027-01-15T08:00:00.000Z',
    );
    expect(iso(nextBillingDate(utc('2026-11-30T08:00:00.000Z'), 'monthly', null, 2))).to.equal(
      '2027-02-28T08:00:00.000Z',
    );
  });

  it('quarterly adds three months with clamping', () => {
    const anchor = utc('2026-11-30T12:00:00.000Z');
    expect(iso(nextBillingDate(anchor, 'quarterly', null, 0))).to.equal('2027-02-28T12:00:00.000Z');
    expect(iso(nextBillingDate(anchor, 'quarterly', null, 1))).to.equal('2027-05-30T12:00:00.000Z');
  });

  it('half_yearly: Aug 31 + 6 months = Feb 28, + 12 months = Aug 31', () => {
    const anchor = utc('2026-08-31T00:00:00.000Z');
    expect(iso(nextBillingDate(anchor, 'half_yearly', null, 0))).to.equal('2027-02-28T00:00:00.000Z');
    expect(iso(nextBillingDate(anchor, 'half_yearly', null, 1))).to.equal('2027-08-31T00:00:00.000Z');
  });

  it('yearly: Feb 29 2028 + 1 year = Feb 28 2029, + 4 years = Feb 29 2032', () => {
    const anchor = utc('2028-02-29T09:15:00.000Z');
    expect(iso(nextBillingDate(anchor, 'yearly', null, 0))).to.equal('2029-02-28T09:15:00.000Z');
    expect(iso(nextBillingDate(anchor, 'yearly', null, 3))).to.equal('2032-02-29T09:15:00.000Z');
  });

  it('keeps the time of day, including milliseconds', () => {
    expect(iso(nextBillingDate(utc('2026-05-31T23:59:59.999Z'), 'monthly', null, 0))).to.equal(
      '2026-06-30T23:59:59.999Z',
    );
  });

  it('none has no next billing date (no renewal)', () => {
    expect(nextBillingDate(utc('2026-01-01T00:00:00.000Z'), 'none', null, 0)).to.equal(null);
    expect(addBillingPeriods(utc('2026-01-01T00:00:00.000Z'), 'none', null, 0)).to.equal(null);
  });

  it('addBillingPeriods(anchor, cycle, days, 0) is the anchor; nextBillingDate(n) = addBillingPeriods(n + 1)', () => {
    const anchor = utc('2027-01-31T10:00:00.000Z');
    expect(iso(addBillingPeriods(anchor, 'monthly', null, 0))).to.equal(anchor.toISOString());
    for (let n = 0; n < 24; n += 1) {
      expect(iso(nextBillingDate(anchor, 'monthly', null, n))).to.equal(
        iso(addBillingPeriods(anchor, 'monthly', null, n + 1)),
      );
    }
  });

  it('never drifts: 24 monthly boundaries from Jan 31 all fall on the month end', () => {
    const anchor = utc('2027-01-31T00:00:00.000Z');
    for (let n = 1; n <= 24; n += 1) {
      const date = addBillingPeriods(anchor, 'monthly', null, n)!;
      const nextDay = new Date(date.getTime() + 86_400_000);
      expect(nextDay.getUTCDate(), date.toISOString()).to.equal(1);
    }
  });

  it('addMonthsClamped handles negative months too', () => {
    expect(addMonthsClamped(utc('2027-03-31T00:00:00.000Z'), -1).toISOString()).to.equal('2027-02-28T00:00:00.000Z');
  });

  it('refuses a custom cycle without days, negative cycle counts and invalid anchors', () => {
    const anchor = utc('2026-01-01T00:00:00.000Z');
    expect(() => nextBillingDate(anchor, 'custom', null, 0)).to.throw(RangeError);
    expect(() => nextBillingDate(anchor, 'custom', 0, 0)).to.throw(RangeError);
    expect(() => nextBillingDate(anchor, 'monthly', null, -1)).to.throw(RangeError);
    expect(() => nextBillingDate(anchor, 'monthly', null, 1.5)).to.throw(RangeError);
    expect(() => nextBillingDate(new Date('nope'), 'monthly', null, 0)).to.throw(RangeError);
  });

  it('ignores customDays for the fixed cycles', () => {
    expect(iso(nextBillingDate(utc('2026-01-01T00:00:00.000Z'), 'daily', 30, 0))).to.equal('2026-01-02T00:00:00.000Z');
  });
});

describe('workflows/lib pure modules', () => {
  // The subscription workflow imports these inside the Temporal sandbox: no api/, db/ or Node modules.
  for (const file of ['pricing.ts', 'change-charge-behavior.ts']) {
    it(`${file} imports nothing`, () => {
      const source = readFileSync(join(__dirname, '../../workflows/lib', file), 'utf8');
      expect(source).to.not.match(/^\s*import\s/m);
      expect(source).to.not.match(/\brequire\(/);
      expect(source).to.not.match(/Date\.now\(|new Date\(\)|Math\.random\(/);
    });
  }
});
