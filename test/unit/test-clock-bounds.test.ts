/** Rule: a test clock is bounded work — the pure bounds of one advance (test-clocks.rules.ts). */
import { expect } from 'chai';
import { advanceHorizon, renewalsDueBy } from '../../api/modules/test-clocks/test-clocks.rules';

const limits = { maxAdvanceMonths: 12, maxSpanMonths: 24, renewalsPerAdvance: 1000 };
const at = (iso: string) => new Date(iso);

describe('Rule: a test clock is bounded work (the bounds of one advance)', () => {
  it('one advance reaches 12 calendar months past the clock, clamped at month end (Feb 29 → Feb 28)', () => {
    const clock = { frozenTime: at('2028-02-29T10:00:00Z'), startTime: at('2028-02-29T10:00:00Z') };
    expect(advanceHorizon(clock, limits)).to.deep.equal({
      latest: at('2029-02-28T10:00:00Z'),
      bound: 'advance',
      limitMonths: 12,
    });
  });

  it('the clock never goes past 24 months from its start, whichever limit comes first', () => {
    const clock = { frozenTime: at('2028-06-30T10:00:00Z'), startTime: at('2027-01-31T10:00:00Z') };
    expect(advanceHorizon(clock, limits)).to.deep.equal({
      latest: at('2029-01-31T10:00:00Z'),
      bound: 'span',
      limitMonths: 24,
    });
  });

  it('counts the renewals due up to the time on each calendar, from its next charge; a plan that never renews counts none', () => {
    const daily = {
      billingAnchorAt: at('2027-01-31T10:00:00Z'),
      billingCycle: 'daily' as const,
      customBillingDays: null,
      nextDueIndex: 1,
    };
    const monthly = { ...daily, billingCycle: 'monthly' as const, nextDueIndex: 2 };
    const none = { ...daily, billingCycle: 'none' as const };
    // Daily: Feb 1 … Jan 31 2028 (365); monthly from charge 2 (Mar 31) to Jan 31 2028 (11).
    expect(renewalsDueBy([daily, monthly, none], at('2028-01-31T10:00:00Z'))).to.equal(365 + 11);
    expect(renewalsDueBy([daily], at('2027-02-01T09:59:59.999Z'))).to.equal(0);
  });
});
