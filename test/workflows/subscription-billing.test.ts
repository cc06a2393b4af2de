/**
 * The subscription workflow on the time-skipping server: renewals on the billing calendar, trial conversion,
 * dunning and its exhaustion, each charge a real charge-cascade child against the sandbox PSP. The test server's
 * clock is the product's clock: every date the read model shows comes from it.
 */
import { expect } from 'chai';
import { temporal } from '@temporalio/proto';
import { billingResumedSignal, subscriptionWorkflowId, viewQuery } from '../../workflows/subscription.shared';
import {
  MerchantConnectorSchema,
  OfferSchema,
  SubscriptionTransitionSchema,
  TransactionSchema,
} from '../../db/entities';
import { createOffer } from '../helpers/catalog';
import { sleepPast } from '../helpers/time-skipping';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { stack } from '../helpers/stack';
import { override } from '../helpers/transactions';
import { storedSubscription, subscribed, subscriptionEvents } from '../helpers/subscriptions';

const DAY = 86_400_000;

describe('subscriptionWorkflow billing (time-skipping test server)', () => {
  const { server, serverNow, worker, start, track } = useSubscriptionWorkflows('test-subscription-billing');

  it('renews monthly from Jan 31 for a year on the clamped calendar (Feb 28/29, Mar 31 … Jan 31), then expires at the cycle limit', async function () {
    this.timeout(180_000);
    const now = await serverNow();
    const jan31 = new Date(Date.UTC(now.getUTCFullYear() + 2, 0, 31, 12));
    const sub = await subscribed(jan31, { cycleLimit: 13 });
    const handle = await start(sub);
    expect(await (await worker()).runUntil(handle.result())).to.equal('expired');
    const renewed = (await subscriptionEvents(sub.tenant.merchant_id)).filter(
      ([type]) => type === 'subscription.renewed',
    );
    const y = jan31.getUTCFullYear();
    const feb = new Date(Date.UTC(y, 2, 0)).getUTCDate(); // 28, or 29 in a leap year
    const day = (m: number, d: number, year = y) => new Date(Date.UTC(year, m, d, 12)).toISOString();
    expect(renewed.map(([, object]) => object.current_period_start)).to.deep.equal([
      day(1, feb),
      day(2, 31),
      day(3, 30),
      day(4, 31),
      day(5, 30),
      day(6, 31),
      day(7, 31),
      day(8, 30),
      day(9, 31),
      day(10, 30),
      day(11, 31),
      day(0, 31, y + 1),
    ]);
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cyclesCompleted, stored.billingAnchorDay]).to.deep.equal(['expired', 13, 31]);
  });

  it('a paid renewal costs its workflow no activity task and no search-attribute write: its reads and its step run inside its own workflow tasks', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    await (await worker()).runUntil(sleepPast(server.env, sub.state.periodEnd));
    expect((await storedSubscription(sub.state.subscriptionId)).cyclesCompleted).to.equal(2);
    const T = temporal.api.enums.v1.EventType;
    const events = (await handle.fetchHistory()).events ?? [];
    const count = (type: temporal.api.enums.v1.EventType) => events.filter((event) => event.eventType === type).length;
    expect({
      activities: count(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
      localSteps: count(T.EVENT_TYPE_MARKER_RECORDED),
      upserts: count(T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES),
    }).to.deep.equal({ activities: 0, localSteps: 2, upserts: 1 });
  });

  it('converts a trial at its end with the first real charge (trialing → active, trial_conversion)', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow(), { freeTrial: true, trialDays: 14 });
    expect(sub.state.status).to.equal('trialing');
    const handle = await start(sub);
    const w = await worker();
    await w.runUntil(async () => {
      await server.env.sleep(15 * DAY);
      const view = await handle.query(viewQuery);
      expect(view.state.status).to.equal('active');
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cyclesCompleted]).to.deep.equal(['active', 1]);
    expect(stored.currentPeriodStart.toISOString()).to.equal(sub.state.trialEnd);
  });

  it('a declined renewal enters dunning and the first retry recovers it (counters reset, reactivated)', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await override(sub.connector, 'do_not_honor', 1);
    await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.periodEnd);
      const stored = await storedSubscription(sub.state.subscriptionId);
      expect(stored.status).to.equal('dunning');
      expect(stored.dunningStartedAt).to.not.equal(null);
      await server.env.sleep(DAY);
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.dunningAttemptCount, stored.dunningStartedAt, stored.cyclesCompleted]).to.deep.equal([
      'active',
      0,
      null,
      2,
    ]);
    const types = (await subscriptionEvents(sub.tenant.merchant_id)).map(([type]) => type);
    expect(types).to.deep.equal([
      'subscription.created',
      'subscription.dunning',
      'subscription.renewed',
      'subscription.reactivated',
    ]);
  });

  it('trial conversion declined enters dunning, and the first retry recovers it into an active first period', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow(), { freeTrial: true, trialDays: 14 });
    await override(sub.connector, 'do_not_honor', 1);
    await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await server.env.sleep(14 * DAY + 3_600_000);
      const stored = await storedSubscription(sub.state.subscriptionId);
      expect([stored.status, stored.cyclesCompleted]).to.deep.equal(['dunning', 0]);
      await server.env.sleep(DAY);
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cyclesCompleted, stored.dunningAttemptCount]).to.deep.equal(['active', 1, 0]);
    const transitions = await stack()
      .orm.em.fork()
      .find(
        SubscriptionTransitionSchema,
        { subscriptionId: sub.state.subscriptionId },
        { orderBy: { createdAt: 'asc' } },
      );
    const moves = transitions.filter((t) => t.transitionType !== 'creation' && t.transitionType !== 'trial_start');
    expect(moves.map((t) => [t.transitionType, t.fromStatus, t.toStatus])).to.deep.equal([
      ['dunning_entry', 'trialing', 'dunning'],
      ['dunning_retry', 'dunning', 'active'],
    ]);
  });

  it('dunning exhausted after the 1, 3, 5, 7-day retries cancels the subscription (dunning_cancelled)', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await override(sub.connector, 'do_not_honor', 5);
    const handle = await start(sub);
    expect(await (await worker()).runUntil(handle.result())).to.equal('cancelled');
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cancellationReason, stored.dunningAttemptCount]).to.deep.equal([
      'cancelled',
      'dunning_exhausted',
      4,
    ]);
  });

  const setConnectorActive = (id: string, isActive: boolean) =>
    stack().orm.em.fork().nativeUpdate(MerchantConnectorSchema, { id }, { isActive });
  const chargesAfterFirst = async (subscriptionId: string) =>
    (await stack().orm.em.fork().find(TransactionSchema, { subscriptionId })).filter(
      (tx) => tx.metadata?.subscription_id === subscriptionId,
    );

  it('billing hold: with no active connector nothing is charged or cancelled; once one is back (signal) the period re-anchors there', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await setConnectorActive(sub.connector.id, false);
    const handle = await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await server.env.sleep(40 * DAY);
      expect(await chargesAfterFirst(sub.state.subscriptionId)).to.have.length(0);
      const held = await storedSubscription(sub.state.subscriptionId);
      expect([held.status, held.cyclesCompleted]).to.deep.equal(['active', 1]);
      await setConnectorActive(sub.connector.id, true);
      const backAt = await serverNow();
      await handle.signal(billingResumedSignal);
      await server.env.sleep(5 * 60_000);
      const stored = await storedSubscription(sub.state.subscriptionId);
      expect([stored.status, stored.cyclesCompleted]).to.deep.equal(['active', 2]);
      // Re-anchored when billing came back (a minute after the signal), not at the missed renewal date.
      expect(stored.currentPeriodStart.getTime() - backAt.getTime()).to.be.within(0, 5 * 60_000);
    });
    expect(await chargesAfterFirst(sub.state.subscriptionId)).to.have.length(1);
  });

  it('billing hold without a signal: the daily re-check finds the connector back', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await setConnectorActive(sub.connector.id, false);
    await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await server.env.sleep(32 * DAY);
      await setConnectorActive(sub.connector.id, true);
      await server.env.sleep(DAY + 60_000);
    });
    expect((await storedSubscription(sub.state.subscriptionId)).cyclesCompleted).to.equal(2);
  });

  it('cycle limit with renew_after_cycle_limit: a new subscription on renewal_offer_id instead of expiry, charged at once (no subscription.expired)', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow(), { cycleLimit: 2 });
    const { offer: next } = await createOffer(sub.tenant.merchant_id, {
      familyId: sub.familyId,
      prices: [{ currency: 'USD', amount: 1500, isDefault: true }],
    });
    await stack()
      .orm.em.fork()
      .nativeUpdate(OfferSchema, { id: sub.offerId }, { renewAfterCycleLimit: true, renewalOfferId: next.id });
    const handle = await start(sub);
    const w = await worker();
    const renewed = await w.runUntil(async () => {
      expect(await handle.result()).to.equal('expired');
      const [transition] = await stack().orm.em.fork().find(SubscriptionTransitionSchema, {
        subscriptionId: sub.state.subscriptionId,
        transitionType: 'cycle_limit_renewed',
      });
      const id = (transition.metadata as { renewed_as: string }).renewed_as;
      track(subscriptionWorkflowId(id));
      await server.env.sleep(3_600_000);
      return storedSubscription(id);
    });
    expect([renewed.status, renewed.currentOfferId, renewed.currentAmount, renewed.cyclesCompleted]).to.deep.equal([
      'active',
      next.id,
      1500,
      1,
    ]);
    const old = await storedSubscription(sub.state.subscriptionId);
    expect([old.status, old.cyclesCompleted]).to.deep.equal(['expired', 2]);
    // Document 2: "a new subscription is created instead of expiry".
    const types = (await subscriptionEvents(sub.tenant.merchant_id)).map(([type]) => type);
    expect(types).to.not.include('subscription.expired');
    expect(types.filter((type) => type === 'subscription.created')).to.have.length(2);
  });
});
