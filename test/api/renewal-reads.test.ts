/**
 * Rule: a due renewal reads its billing holds and its charge's inputs in one statement: the holds billingHoldOf
 * finds, or the renewal's charge on the saved instrument; a held subscription is never prepared a charge. settleRenewal writes the paid step with the verdict, once however often it is retried.
 */
import { expect } from 'chai';
import { createActivities } from '../../activities';
import { EventSchema, MerchantConnectorSchema, OfferSchema, SubscriptionSchema } from '../../db/entities';
import { chargeSucceeded } from '../../workflows/lib/subscription-billing';
import { stack } from '../helpers/stack';
import { subscribed } from '../helpers/subscriptions';
import { statementsOf } from '../helpers/statements';

describe('Rule: a due renewal reads its holds and its charge inputs in one statement', () => {
  const activities = () => createActivities({ orm: stack().orm, rateLimitWindowSeconds: 60 });

  it("prepares the renewal's charge on the saved instrument, in one statement", async () => {
    const sub = await subscribed(new Date());
    const request = { state: sub.state, cycleNumber: 2, attempt: 0, amount: sub.state.amount };
    const { result, sql: statements } = await statementsOf(stack().orm.em, () => activities().prepareRenewal(request));
    expect(statements).to.have.length(1);
    if (!('charge' in result)) throw new Error(`no charge prepared: ${JSON.stringify(result)}`);
    expect(result.charge).to.deep.include({
      subscriptionId: sub.state.subscriptionId,
      paymentInstrumentId: sub.instrumentId,
      amount: sub.state.amount,
    });
    expect(result.charge.order).to.deep.include({ orderType: 'renewal', recurrence: 'subsequent' });
  });

  it('returns the holds billingHoldOf finds, and no charge, when billing is held', async () => {
    const sub = await subscribed(new Date());
    const em = stack().orm.em.fork();
    await em.nativeUpdate(MerchantConnectorSchema, { id: sub.connector.id }, { isActive: false });
    await em.nativeUpdate(OfferSchema, { id: sub.offerId }, { deletedAt: new Date() });
    const request = { state: sub.state, cycleNumber: 2, attempt: 0, amount: sub.state.amount };
    const { result, sql: statements } = await statementsOf(stack().orm.em, () => activities().prepareRenewal(request));
    expect(statements).to.have.length(1);
    const held = await activities().billingHoldOf({ merchantId: sub.state.merchantId, offerId: sub.offerId });
    expect(held).to.deep.equal(['no_active_connector', 'offer_unavailable']);
    expect(result).to.deep.equal({ held });
  });

  it('settleRenewal writes a paid renewal step once, however often it is retried', async () => {
    const sub = await subscribed(new Date());
    // The subscription's first charge is paid: its verdict reads "paid" like a renewal's would.
    const em = stack().orm.em.fork();
    const { originTransactionId: transactionId } = await em.findOneOrFail(SubscriptionSchema, {
      id: sub.state.subscriptionId,
    });
    const billed = { orderId: null, amount: sub.state.amount, proration: 0, charged: sub.state.amount };
    const move = chargeSucceeded(sub.state, billed, new Date(sub.state.periodEnd));
    const step = {
      state: move.state,
      key: `subscription-${sub.state.subscriptionId}:1`,
      at: sub.state.periodEnd,
      transition: move.transition,
      events: move.events,
      actionRequired: null,
      dunningNextRetryAt: null,
    };
    const renewedEvents = () =>
      stack().orm.em.fork().count(EventSchema, { merchantId: sub.state.merchantId, type: 'subscription.renewed' });
    const before = await renewedEvents();
    for (let i = 0; i < 2; i += 1) {
      expect(await activities().settleRenewal({ transactionId, ifPaid: step })).to.deep.equal({ status: 'paid' });
    }
    expect((await renewedEvents()) - before).to.equal(1);
    const row = await em.fork().findOneOrFail(SubscriptionSchema, { id: sub.state.subscriptionId });
    expect(row.cyclesCompleted).to.equal(sub.state.cyclesCompleted + 1);
  });
});
