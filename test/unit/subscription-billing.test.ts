/**
 * The subscription workflow's pure billing moves (workflows/lib/subscription-billing.ts): what a declined renewal
 * does to a retry a new instrument brought forward, and how a renewal refused for a reason that is not the card's
 * waits without counting against dunning, and how a renewal in doubt past its deadline moves the calendar on.
 */
import { expect } from 'chai';
import { chargeFailed, chargeInDoubt, nextWake, outageRetry } from '../../workflows/lib/subscription-billing';
import { changePaymentInstrument } from '../../workflows/lib/subscription-moves';
import { DEFAULT_DUNNING_SCHEDULE_DAYS, refuseOfferChange } from '../../workflows/lib/subscription-rules';
import type { SubscriptionState } from '../../workflows/lib/subscription-state';

const SCHEDULE = DEFAULT_DUNNING_SCHEDULE_DAYS;
const admin = { triggeredBy: 'admin' as const, actor: null };
const MAR_1 = new Date('2027-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(MAR_1.getTime() + ms);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const active: SubscriptionState = {
  subscriptionId: 'sub_1',
  organizationId: 'org_1',
  merchantId: 'mer_1',
  customerId: 'cus_1',
  status: 'active',
  offerId: 'off_1',
  productId: 'prod_1',
  productFamilyId: 'fam_1',
  amount: 999,
  currency: 'USD',
  billingCycle: 'monthly',
  customDays: null,
  cycleLimit: null,
  anchorAt: '2027-02-01T10:00:00.000Z',
  nextDueIndex: 1,
  periodStart: '2027-02-01T10:00:00.000Z',
  periodEnd: MAR_1.toISOString(),
  trialStart: null,
  trialEnd: null,
  cyclesCompleted: 1,
  cancelAtPeriodEnd: false,
  cancelledAt: null,
  cancellationReason: null,
  dunningStartedAt: null,
  dunningAttempts: 0,
  paymentInstrumentId: 'pi_old',
  pausedFrom: null,
  pendingProration: 0,
  retryNowAt: null,
  holdCheckAt: null,
};
const dunning: SubscriptionState = { ...active, status: 'dunning', dunningStartedAt: MAR_1.toISOString() };

describe('Subscription billing moves (pure)', () => {
  describe('a new instrument given while a renewal settles', () => {
    for (const state of [active, dunning]) {
      it(`keeps its immediate retry when that renewal (on the old card) is declined (${state.status})`, () => {
        const settling = {
          ...state,
          settling: {
            orderId: 'ord_1',
            amount: 999,
            proration: 0,
            charged: 999,
            transactionId: 'tx_1',
            checkAt: MAR_1.toISOString(),
            checks: 1,
            paymentInstrumentId: 'pi_old',
          },
        };
        const changed = changePaymentInstrument(settling, 'pi_new', admin, at(MINUTE)).state;
        // The workflow applies the verdict once the renewal no longer settles.
        const declined = chargeFailed(
          { ...changed, settling: null },
          'ord_1',
          at(2 * MINUTE),
          SCHEDULE,
          'do_not_honor',
          'pi_old',
        );
        expect(declined.state.status).to.equal('dunning');
        expect(nextWake(declined.state, SCHEDULE)).to.deep.equal({ at: at(2 * MINUTE), reason: 'dunning_retry' });
      });
    }

    it('a retry declined on the instrument it was given for is spent: the next retry is the scheduled one', () => {
      const changed = changePaymentInstrument(dunning, 'pi_new', admin, at(MINUTE)).state;
      const declined = chargeFailed(changed, 'ord_2', at(2 * MINUTE), SCHEDULE, 'do_not_honor', 'pi_new');
      expect(declined.state.retryNowAt).to.equal(null);
      expect(nextWake(declined.state, SCHEDULE)?.at.toISOString()).to.equal('2027-03-04T10:00:00.000Z');
    });
  });

  describe('a renewal refused for a reason that is not the card’s', () => {
    it('is tried again soon, later each time, with no dunning step and the calendar kept', () => {
      let state = active;
      const waits: number[] = [];
      let now = MAR_1;
      for (let i = 0; i < 6; i++) {
        state = outageRetry(state, now);
        const wake = nextWake(state, SCHEDULE)!;
        expect(wake.reason).to.equal('renewal');
        waits.push((wake.at.getTime() - now.getTime()) / MINUTE);
        now = wake.at;
      }
      expect(waits).to.deep.equal([1, 5, 15, 60, 360, 360]);
      expect([state.status, state.dunningAttempts, state.anchorAt, state.nextDueIndex]).to.deep.equal([
        'active',
        0,
        active.anchorAt,
        1,
      ]);
    });

    it('in dunning, the retry runs again soon and is not counted', () => {
      const state = outageRetry(dunning, at(DAY));
      expect([state.dunningAttempts, nextWake(state, SCHEDULE)]).to.deep.equal([
        0,
        { at: at(DAY + MINUTE), reason: 'dunning_retry' },
      ]);
    });

    it('on a test clock, waits for the clock to move past the time it is advancing to (the outage is in real time)', () => {
      const frozenTime = at(30 * DAY).toISOString();
      const onClock = { ...active, testClock: { id: 'clk_1', now: MAR_1.toISOString(), frozenTime, reportTo: null } };
      const state = outageRetry(onClock, MAR_1);
      expect(nextWake(state, SCHEDULE)?.at).to.deep.equal(at(30 * DAY + MINUTE));
    });

    it('a declined charge after it (an issuer decline) goes to dunning on the usual schedule', () => {
      const waiting = outageRetry(active, MAR_1);
      const declined = chargeFailed(waiting, 'ord_3', at(MINUTE), SCHEDULE, 'do_not_honor');
      expect(declined.events).to.deep.equal(['subscription.dunning']);
      expect(nextWake(declined.state, SCHEDULE)).to.deep.equal({ at: at(DAY + MINUTE), reason: 'dunning_retry' });
    });
  });

  it('a change to the offer the subscription is already on is refused (the API’s OFFER_UNCHANGED)', () => {
    expect(refuseOfferChange(active, 'off_1')).to.deep.equal({
      code: 'OFFER_UNCHANGED',
      message: 'The subscription is already on this offer',
    });
    expect(refuseOfferChange(active, 'off_2')).to.equal(null);
  });

  describe('a renewal whose charge is in doubt past its deadline', () => {
    const billed = { orderId: 'ord_1', amount: 999, proration: 0, charged: 999 };

    it('counts the cycle as billed in doubt: the period advances, no retry, no dunning, no subscription.renewed', () => {
      const move = chargeInDoubt(active, billed, at(DAY));
      expect(move.events).to.deep.equal([]);
      expect(move.transition).to.equal(null);
      expect(move.state).to.include({
        status: 'active',
        cyclesCompleted: 2,
        periodStart: MAR_1.toISOString(),
        periodEnd: '2027-04-01T10:00:00.000Z',
        dunningAttempts: 0,
      });
      expect(nextWake(move.state, SCHEDULE)).to.deep.equal({
        at: new Date('2027-04-01T10:00:00.000Z'),
        reason: 'renewal',
      });
    });

    it('a dunning retry in doubt ends dunning (subscription.reactivated), its transition marked in_doubt', () => {
      const move = chargeInDoubt(dunning, billed, at(DAY));
      expect(move.state.status).to.equal('active');
      expect(move.events).to.deep.equal(['subscription.reactivated']);
      expect(move.transition).to.include({ type: 'dunning_retry' });
      expect(move.transition?.metadata).to.deep.equal({ outcome: 'in_doubt' });
    });
  });
});
