/**
 * Exactly once under activity retries: the subscription activities run twice with the same input (as Temporal does
 * after a worker dies between the write and its acknowledgement) change nothing the second time, and a renewal's
 * charge ids — hence its provider idempotency key — are the same on every try.
 */
import { expect } from 'chai';
import { createActivities } from '../../activities';
import { EventSchema, SubscriptionTransitionSchema } from '../../db/entities';
import { chargeFailed } from '../../workflows/lib/subscription-billing';
import { DEFAULT_DUNNING_SCHEDULE_DAYS } from '../../workflows/lib/subscription-rules';
import { stack } from '../helpers/stack';
import { storedSubscription, subscribed } from '../helpers/subscriptions';

describe('Subscription activities are idempotent', () => {
  const activities = () => createActivities({ orm: stack().orm, rateLimitWindowSeconds: 60 });
  const count = async (subscriptionId: string, merchantId: string) => {
    const em = stack().orm.em.fork();
    return {
      transitions: await em.count(SubscriptionTransitionSchema, { subscriptionId }),
      events: await em.count(EventSchema, { merchantId, type: { $like: 'subscription.%' } }),
    };
  };

  it('a retried step write (same key) appends no second transition and fires no second event', async () => {
    const sub = await subscribed(new Date());
    const move = chargeFailed(sub.state, null, new Date(), DEFAULT_DUNNING_SCHEDULE_DAYS, 'do_not_honor');
    const step = {
      state: move.state,
      key: `subscription-${sub.state.subscriptionId}:1`,
      at: new Date().toISOString(),
      transition: move.transition,
      events: move.events,
      dunningNextRetryAt: new Date().toISOString(),
    };
    await activities().writeSubscriptionStep(step);
    const once = await count(sub.state.subscriptionId, sub.tenant.merchant_id);
    await activities().writeSubscriptionStep(step);
    expect(await count(sub.state.subscriptionId, sub.tenant.merchant_id)).to.deep.equal(once);
    expect(once).to.deep.equal({ transitions: 2, events: 2 }); // creation + dunning_entry; created + dunning
    expect((await storedSubscription(sub.state.subscriptionId)).status).to.equal('dunning');
  });

  it('a renewal charge gets the same transaction and order ids on every try of the same cycle, new ones per try', async () => {
    const sub = await subscribed(new Date());
    const input = { state: sub.state, cycleNumber: 2, attempt: 0, amount: 999 };
    const prepare = async (request: typeof input) => {
      const prepared = await activities().prepareRenewal(request);
      if (!('charge' in prepared)) throw new Error(`no charge prepared: ${JSON.stringify(prepared)}`);
      return prepared.charge;
    };
    const first = await prepare(input);
    const again = await prepare(input);
    expect([again.transactionId, again.orderId]).to.deep.equal([first.transactionId, first.orderId]);
    const retry = await prepare({ ...input, attempt: 1 });
    expect(retry.transactionId).to.not.equal(first.transactionId);
    expect(first).to.deep.include({ subscriptionId: sub.state.subscriptionId, paymentInstrumentId: sub.instrumentId });
    expect(first.order).to.deep.include({ orderType: 'renewal', recurrence: 'subsequent' });
  });
});
