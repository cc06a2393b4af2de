/**
 * The subscription workflow's operations (Updates) and their effect on its clock, on the time-skipping server:
 * pause across renewal dates, scheduled cancellation and its reactivation, offer changes per behaviour, a changed
 * instrument during dunning, a card reported gone, the validators, and continue-as-new.
 */
import { expect } from 'chai';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TransactionSchema } from '../../db/entities';
import {
  cancelUpdate,
  changeOfferUpdate,
  changePaymentInstrumentUpdate,
  pauseUpdate,
  reactivateUpdate,
  resumeUpdate,
  subscriptionWorkflowId,
  viewQuery,
} from '../../workflows/subscription.shared';
import type { TargetOffer } from '../../workflows/lib/subscription-moves';
import { sleepPast } from '../helpers/time-skipping';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { stack } from '../helpers/stack';
import { override } from '../helpers/transactions';
import { saveCard } from '../helpers/vault';
import { createOffer } from '../helpers/catalog';
import { accountOf, ledger } from '../helpers/sandbox';
import { storedSubscription, subscribed, subscriptionEvents, type Subscribed } from '../helpers/subscriptions';

const DAY = 86_400_000;
const admin = { triggeredBy: 'admin' as const, actor: { id: 'usr_1', type: 'user', name: 'Ada', email: 'a@x.io' } };

describe('subscriptionWorkflow operations (time-skipping test server)', () => {
  const { server, serverNow, worker, start } = useSubscriptionWorkflows('test-subscription-operations');
  const eventTypes = async (sub: Subscribed) => (await subscriptionEvents(sub.tenant.merchant_id)).map(([t]) => t);
  /** The subscription's charges after its first one (which carries its subscription_id too). */
  const renewals = (sub: Subscribed) =>
    stack()
      .orm.em.fork()
      .find(TransactionSchema, { subscriptionId: sub.state.subscriptionId }, { orderBy: { createdAt: 'asc' } })
      .then((all) => all.filter((tx) => tx.metadata?.subscription_id === sub.state.subscriptionId));

  it('pause across two renewal dates charges nothing; resume re-anchors and charges the new period at once', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await handle.executeUpdate(pauseUpdate, { args: [{ ...admin, reason: 'travelling' }] });
      await server.env.sleep(65 * DAY);
      expect(await renewals(sub)).to.have.length(0);
      expect((await storedSubscription(sub.state.subscriptionId)).status).to.equal('paused');
      const resumedAt = await serverNow();
      const state = await handle.executeUpdate(resumeUpdate, { args: [admin] });
      expect(state.status).to.equal('active');
      await server.env.sleep(DAY);
      const stored = await storedSubscription(sub.state.subscriptionId);
      expect(stored.cyclesCompleted).to.equal(2);
      expect(Math.abs(stored.currentPeriodStart.getTime() - resumedAt.getTime())).to.be.lessThan(DAY);
    });
    expect(await renewals(sub)).to.have.length(1);
    expect(await eventTypes(sub)).to.deep.equal([
      'subscription.created',
      'subscription.paused',
      'subscription.resumed',
      'subscription.reactivated',
      'subscription.renewed',
    ]);
  });

  it('a scheduled cancellation takes effect at the period end, with no charge', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    const result = await (
      await worker()
    ).runUntil(async () => {
      await handle.executeUpdate(cancelUpdate, { args: [{ ...admin, atPeriodEnd: true, reason: 'budget' }] });
      return handle.result();
    });
    expect(result).to.equal('cancelled');
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.cancellationReason, stored.cancelledAt?.toISOString()]).to.deep.equal([
      'budget',
      sub.state.periodEnd,
    ]);
    expect(await renewals(sub)).to.have.length(0);
  });

  it('reactivate before the period end takes the cancellation back: the period renews instead', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await handle.executeUpdate(cancelUpdate, { args: [{ ...admin, atPeriodEnd: true, reason: null }] });
      await server.env.sleep(10 * DAY);
      await handle.executeUpdate(reactivateUpdate, { args: [admin] });
      await server.env.sleep(25 * DAY);
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cyclesCompleted, stored.cancelAtPeriodEnd]).to.deep.equal(['active', 2, false]);
  });

  it("validators refuse a move the state forbids (resume while active) before it is accepted: 'INVALID_STATE_TRANSITION'", async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    const failure = await (
      await worker()
    ).runUntil(
      handle.executeUpdate(resumeUpdate, { args: [admin] }).then(
        () => null,
        (error: unknown) => error,
      ),
    );
    expect(failure).to.be.instanceOf(WorkflowUpdateFailedError);
    const cause = (failure as WorkflowUpdateFailedError).cause;
    expect(cause).to.be.instanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).to.equal('INVALID_STATE_TRANSITION');
    const history = await handle.fetchHistory();
    // A rejected Update leaves nothing in the history (no accepted event).
    expect((history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).to.have.length(0);
  });

  async function target(sub: Subscribed, amount: number, behavior: TargetOffer['behavior']): Promise<TargetOffer> {
    const { offer, product } = await createOffer(sub.tenant.merchant_id, {
      familyId: sub.familyId,
      prices: [{ currency: 'USD', amount, isDefault: true }],
    });
    return {
      offerId: offer.id,
      productId: product.id,
      productFamilyId: sub.familyId,
      amount,
      currency: 'USD',
      billingCycle: 'monthly',
      customDays: null,
      cycleLimit: null,
      behavior,
    };
  }

  it('change offer prorated: the difference for the rest of the period is added to the next renewal', async function () {
    this.timeout(60_000);
    const at = await serverNow();
    const sub = await subscribed(at);
    const handle = await start(sub);
    const pro = await target(sub, 1999, 'prorated');
    await (
      await worker()
    ).runUntil(async () => {
      const state = await handle.executeUpdate(changeOfferUpdate, { args: [{ ...admin, target: pro }] });
      expect(state.pendingProration).to.be.greaterThan(900).and.lessThanOrEqual(1000);
      await server.env.sleep(32 * DAY);
    });
    const [renewal] = await renewals(sub);
    const transitions = await stack()
      .orm.em.fork()
      .find('SubscriptionTransition', { subscriptionId: sub.state.subscriptionId, transitionType: 'upgrade' });
    const proration = (transitions[0] as { metadata: { proration_amount: number } }).metadata.proration_amount;
    expect(renewal.amount).to.equal(1999 + proration);
    expect(await eventTypes(sub)).to.include('subscription.upgraded');
  });

  it('change offer next_renew: the new price applies from the next renewal, not before (nothing charged at the change)', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    const pro = await target(sub, 1999, 'next_renew');
    await (
      await worker()
    ).runUntil(async () => {
      await server.env.sleep(10 * DAY);
      const state = await handle.executeUpdate(changeOfferUpdate, { args: [{ ...admin, target: pro }] });
      expect([state.amount, state.pendingProration, state.periodEnd]).to.deep.equal([1999, 0, sub.state.periodEnd]);
      await server.env.sleep(15 * DAY);
      expect(await renewals(sub), 'nothing is charged before the period ends').to.deep.equal([]);
      await server.env.sleep(7 * DAY);
    });
    const charged = await renewals(sub);
    expect(charged.map((tx) => [tx.amount, tx.status])).to.deep.equal([[1999, 'authorized']]);
    const [transition] = await stack()
      .orm.em.fork()
      .find('SubscriptionTransition', { subscriptionId: sub.state.subscriptionId, transitionType: 'upgrade' });
    expect((transition as { metadata: unknown }).metadata).to.deep.equal({ change_charge_behavior: 'next_renew' });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.currentAmount, stored.cyclesCompleted, stored.currentPeriodStart.toISOString()]).to.deep.equal([
      1999,
      2,
      sub.state.periodEnd,
    ]);
  });

  it('change offer override: a new period starts now and is charged in full at once', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    const pro = await target(sub, 2999, 'override');
    await (
      await worker()
    ).runUntil(async () => {
      await handle.executeUpdate(changeOfferUpdate, { args: [{ ...admin, target: pro }] });
      await server.env.sleep(3_600_000);
    });
    const [renewal] = await renewals(sub);
    expect(renewal.amount).to.equal(2999);
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.currentOfferId, stored.currentAmount, stored.cyclesCompleted]).to.deep.equal([pro.offerId, 2999, 2]);
  });

  it('a change to the offer the subscription is already on is refused by the workflow (OFFER_UNCHANGED): an override submitted twice bills one period', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    const pro = await target(sub, 2999, 'override');
    const change = () =>
      handle.executeUpdate(changeOfferUpdate, { args: [{ ...admin, target: pro }] }).then(
        () => null,
        (error: unknown) => error,
      );
    const [first, second] = await (
      await worker()
    ).runUntil(async () => {
      const accepted = await change();
      // The repeat arrives after the first one's immediate charge (both passed the API's check on the old row).
      await server.env.sleep(3_600_000);
      const repeated = await change();
      await server.env.sleep(3_600_000);
      return [accepted, repeated];
    });
    expect(first).to.equal(null);
    expect(second).to.be.instanceOf(WorkflowUpdateFailedError);
    const cause = (second as WorkflowUpdateFailedError).cause;
    expect(cause).to.be.instanceOf(ApplicationFailure);
    expect([(cause as ApplicationFailure).type, (cause as ApplicationFailure).message]).to.deep.equal([
      'OFFER_UNCHANGED',
      'The subscription is already on this offer',
    ]);
    expect(
      (await renewals(sub)).map((tx) => tx.amount),
      'one full period charged',
    ).to.deep.equal([2999]);
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.currentOfferId, stored.cyclesCompleted]).to.deep.equal([pro.offerId, 2]);
  });

  it('a card reported stolen skips the remaining retries; a new instrument during dunning is retried at once', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await override(sub.connector, 'stolen_card', 1);
    const handle = await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.periodEnd);
      const view = await handle.query(viewQuery);
      expect(view.state.status).to.equal('dunning');
      // Only the last scheduled retry is left (day 7 after the decline).
      expect(Date.parse(view.nextWakeAt!) - Date.parse(view.state.dunningStartedAt!)).to.equal(7 * DAY);
      const second = await saveCard(sub.tenant, sub.customerId, {
        number: '5555555555554444',
        cvc: '123',
        brand: 'mastercard',
      });
      await handle.executeUpdate(changePaymentInstrumentUpdate, {
        args: [{ ...admin, paymentInstrumentId: second.id }],
      });
      await server.env.sleep(3_600_000);
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cyclesCompleted]).to.deep.equal(['active', 2]);
    const account = await accountOf('provider_a', sub.connector.credentials);
    const charges = (await ledger({ provider: 'provider_a', account })).filter((e) => e.operation === 'authorize');
    expect(charges.map((e) => e.card_last4)).to.deep.equal(['4242', '4242', '4444']);
  });

  it('continue-as-new carries the state and the step counter: renewals go on in the next run', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub, { stepsPerRun: 2 });
    const first = (await handle.describe()).runId;
    await (await worker()).runUntil(server.env.sleep(95 * DAY));
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect(stored.cyclesCompleted).to.equal(4);
    const latest = server.env.client.workflow.getHandle(subscriptionWorkflowId(sub.state.subscriptionId));
    expect((await latest.describe()).runId).to.not.equal(first);
    expect(await eventTypes(sub)).to.deep.equal([
      'subscription.created',
      'subscription.renewed',
      'subscription.renewed',
      'subscription.renewed',
    ]);
  });
});
