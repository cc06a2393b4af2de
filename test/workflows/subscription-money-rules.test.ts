/**
 * The subscription contract's money rules (Document 3), on the time-skipping server with the real activities, database
 * and sandbox: revoked instruments are never charged, change-offer works in dunning, a hold does not burst the dunning
 * retries, missed cycles are not caught up, and a prorated change across billing cycles is priced in time.
 */
import { expect } from 'chai';
import { MerchantConnectorSchema, MerchantSchema, PaymentInstrumentSchema } from '../../db/entities';
import { billingResumedSignal, cancelUpdate, changeOfferUpdate, viewQuery } from '../../workflows/subscription.shared';
import { sleepPast } from '../helpers/time-skipping';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { stack } from '../helpers/stack';
import { override } from '../helpers/transactions';
import { accountOf, ledger } from '../helpers/sandbox';
import {
  offerTarget,
  renewalCharges,
  storedSubscription,
  subscribed,
  subscriptionEvents,
  transitionsOf,
  type Subscribed,
} from '../helpers/subscriptions';

const DAY = 86_400_000;
const admin = { triggeredBy: 'admin' as const, actor: null };

/** Card authorizations the sandbox saw for the subscription's connector (the first charge included). */
async function authorizations(sub: Subscribed) {
  const account = await accountOf('provider_a', sub.connector.credentials);
  return (await ledger({ provider: 'provider_a', account })).filter((e) => e.operation === 'authorize');
}

describe('Subscription money rules (time-skipping test server)', () => {
  const { server, serverNow, worker, start } = useSubscriptionWorkflows('test-subscription-money-rules');

  it('a revoked payment instrument is never charged at renewal: the renewal fails into dunning without a provider call', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await stack().orm.em.fork().nativeUpdate(PaymentInstrumentSchema, { id: sub.instrumentId }, { status: 'revoked' });
    const before = (await authorizations(sub)).length;
    const handle = await start(sub);
    const view = await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.periodEnd);
      return handle.query(viewQuery);
    });
    expect(await authorizations(sub)).to.have.length(before);
    expect(await renewalCharges(sub)).to.deep.equal([]);
    expect(view.state.status).to.equal('dunning');
    const entry = (await transitionsOf(sub)).find((t) => t.transitionType === 'dunning_entry');
    expect(entry?.metadata).to.deep.include({ decline_code: 'payment_instrument_revoked' });
  });

  it('change offer is allowed in dunning: the next retry charges the new offer, with no proration', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await override(sub.connector, 'do_not_honor', 1);
    const handle = await start(sub);
    const pro = await offerTarget(sub, 1999, 'prorated');
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.periodEnd);
      const state = await handle.executeUpdate(changeOfferUpdate, { args: [{ ...admin, target: pro }] });
      expect([state.status, state.amount, state.pendingProration]).to.deep.equal(['dunning', 1999, 0]);
      await sleepPast(server.env, (await handle.query(viewQuery)).nextWakeAt!);
    });
    expect((await renewalCharges(sub)).map((tx) => [tx.amount, tx.status])).to.deep.equal([
      [999, 'failed'],
      [1999, 'authorized'],
    ]);
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.currentOfferId, stored.cyclesCompleted]).to.deep.equal(['active', pro.offerId, 2]);
  });

  it('a billing hold during dunning moves the remaining retries forward by its length: one retry at the release, not a burst', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await override(sub.connector, 'do_not_honor', 10);
    const handle = await start(sub);
    const setActive = (isActive: boolean) =>
      stack().orm.em.fork().nativeUpdate(MerchantConnectorSchema, { id: sub.connector.id }, { isActive });
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.periodEnd); // declined → dunning
      await setActive(false);
      await server.env.sleep(10 * DAY);
      await setActive(true);
      await handle.signal(billingResumedSignal);
      await server.env.sleep(5 * 60_000);
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.dunningAttemptCount]).to.deep.equal(['dunning', 1]);
    // The renewal and the one retry that was due when the hold began; the later retries are still ahead.
    expect((await renewalCharges(sub)).map((tx) => tx.status)).to.deep.equal(['failed', 'failed']);
    expect(stored.dunningNextRetryAt!.getTime() - (await serverNow()).getTime()).to.be.greaterThan(DAY);
  });

  it('a daily plan that recovers from dunning is not charged for the days it missed: one charge, the period starts at the recovery', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow(), { billingCycle: 'daily' });
    // The renewal and the retries of days 1, 3 and 5 decline; the day-7 retry pays.
    await override(sub.connector, 'do_not_honor', 4);
    const handle = await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.periodEnd, 60_000);
      const startedAt = Date.parse((await handle.query(viewQuery)).state.dunningStartedAt!);
      await sleepPast(server.env, new Date(startedAt + 7 * DAY), 60_000);
    });
    const charged = (await renewalCharges(sub)).filter((tx) => tx.status === 'authorized');
    expect(charged, 'one charge for the recovered cycle, no catch-up').to.have.length(1);
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect(stored.status).to.equal('active');
    expect(stored.currentPeriodEnd.getTime() - stored.currentPeriodStart.getTime()).to.equal(DAY);
    expect(stored.currentPeriodEnd.getTime()).to.be.greaterThan((await serverNow()).getTime());
  });

  it('prorated change from monthly to yearly mid-period: the unused month is credited and the year starts now, charged once less the credit', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    const yearly = await offerTarget(sub, 10000, 'prorated', 'yearly');
    let changedAt = 0;
    await (
      await worker()
    ).runUntil(async () => {
      await server.env.sleep(15 * DAY);
      changedAt = (await serverNow()).getTime();
      const state = await handle.executeUpdate(changeOfferUpdate, { args: [{ ...admin, target: yearly }] });
      const period = Date.parse(sub.state.periodEnd) - Date.parse(sub.state.periodStart);
      const unused = Date.parse(sub.state.periodEnd) - changedAt;
      expect(state.pendingProration).to.equal(-Math.round((999 * unused) / period));
      await server.env.sleep(3_600_000);
    });
    const [renewal] = await renewalCharges(sub);
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect(renewal.amount).to.equal(
      10000 -
        Math.round(
          (999 * (Date.parse(sub.state.periodEnd) - changedAt)) /
            (Date.parse(sub.state.periodEnd) - Date.parse(sub.state.periodStart)),
        ),
    );
    expect([stored.currentAmount, stored.billingCycle, stored.cyclesCompleted]).to.deep.equal([10000, 'yearly', 2]);
    expect(stored.currentPeriodStart.getTime() - changedAt).to.be.within(0, 60_000);
    const year = new Date(stored.currentPeriodStart);
    year.setUTCFullYear(year.getUTCFullYear() + 1);
    expect(stored.currentPeriodEnd.toISOString()).to.equal(year.toISOString());
    expect((await subscriptionEvents(sub.tenant.merchant_id)).map(([t]) => t)).to.include('subscription.upgraded');
  });

  it('a prorated difference still unbilled when a scheduled cancellation takes effect is carried on the cancellation, never dropped silently', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    const pro = await offerTarget(sub, 1999, 'prorated');
    let owed = 0;
    await (
      await worker()
    ).runUntil(async () => {
      await server.env.sleep(10 * DAY);
      owed = (await handle.executeUpdate(changeOfferUpdate, { args: [{ ...admin, target: pro }] })).pendingProration;
      await handle.executeUpdate(cancelUpdate, { args: [{ ...admin, atPeriodEnd: true, reason: null }] });
      expect(await handle.result()).to.equal('cancelled');
    });
    expect(owed).to.be.greaterThan(0);
    const ended = (await transitionsOf(sub)).find(
      (t) => t.transitionType === 'cancellation' && t.toStatus === 'cancelled',
    );
    expect(ended?.metadata).to.deep.equal({ unbilled_proration: owed });
    expect(await renewalCharges(sub)).to.deep.equal([]);
  });

  it('a suspended merchant is a billing hold: nothing is charged or cancelled, and renewals resume after its reactivation', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const setStatus = (status: 'active' | 'suspended') =>
      stack().orm.em.fork().nativeUpdate(MerchantSchema, { id: sub.tenant.merchant_id }, { status });
    await setStatus('suspended');
    await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await server.env.sleep(40 * DAY);
      expect(await renewalCharges(sub)).to.deep.equal([]);
      expect((await storedSubscription(sub.state.subscriptionId)).status).to.equal('active');
      await setStatus('active');
      await server.env.sleep(DAY + 60_000);
    });
    expect((await renewalCharges(sub)).map((tx) => tx.status)).to.deep.equal(['authorized']);
    expect((await storedSubscription(sub.state.subscriptionId)).cyclesCompleted).to.equal(2);
  });
});
