/**
 * The public subscriptions API against the real stack: reads of the read model, and each operation as an Update of
 * the subscription's running workflow (dev server, the stack's worker), answered with the subscription as stored.
 */
import { expect } from 'chai';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { createOffer } from '../helpers/catalog';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { saveCard } from '../helpers/vault';
import { subscribed, type Subscribed } from '../helpers/subscriptions';

const base = (s: Subscribed) => `/merchants/${s.tenant.merchant_id}/subscriptions`;
const post = (s: Subscribed, action: string, body: Record<string, unknown> = {}) =>
  api.post(`${base(s)}/${s.state.subscriptionId}/${action}`, { key: s.tenant.merchant_secret_key, body });

async function running(fixture = {}): Promise<Subscribed> {
  const sub = await subscribed(new Date(), fixture);
  await startSubscriptionWorkflow(stack().api.deps.temporal.client, sub.state);
  return sub;
}

describe('Subscriptions API', () => {
  it('lists, filters and gets a subscription in the spec shape; 404 for another merchant’s', async () => {
    const sub = await running();
    const key = sub.tenant.merchant_secret_key;
    const list = await api.get(`${base(sub)}?status=active&customer_id=${sub.customerId}`, { key });
    expect(list.status, list.text).to.equal(200);
    expect(list.body.data.map((s: any) => s.id)).to.deep.equal([sub.state.subscriptionId]);
    expect((await api.get(`${base(sub)}?status=paused`, { key })).body.data).to.deep.equal([]);
    const one = await api.get(`${base(sub)}/${sub.state.subscriptionId}`, { key });
    expect(one.status).to.equal(200);
    expect(one.body.data).to.include({ status: 'active', current_amount: 999, cycles_completed: 1, currency: 'USD' });
    expect(one.body.data).to.not.have.property('initial_network_transaction_id');
    const other = await subscribed(new Date());
    const foreign = await api.get(`${base(sub)}/${other.state.subscriptionId}`, { key });
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error.code).to.equal('SUBSCRIPTION_NOT_FOUND');
  });

  it('records creation and trial_start transitions, newest first', async () => {
    const sub = await subscribed(new Date(), { freeTrial: true, trialDays: 7 });
    const res = await api.get(`${base(sub)}/${sub.state.subscriptionId}/transitions`, {
      key: sub.tenant.merchant_secret_key,
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.map((t: any) => [t.transition_type, t.from_status, t.to_status])).to.deep.equal([
      ['trial_start', null, 'trialing'],
      ['creation', null, 'trialing'],
    ]);
  });

  it('cancel at period end, then reactivate: both on the subscription and in its transitions', async () => {
    const sub = await running();
    const cancel = await post(sub, 'cancel', { at_period_end: true, reason: 'too expensive' });
    expect(cancel.status, cancel.text).to.equal(200);
    expect(cancel.body.data).to.include({
      status: 'active',
      cancel_at_period_end: true,
      cancellation_reason: 'too expensive',
    });
    const again = await post(sub, 'cancel', { at_period_end: true });
    expect(again.status).to.equal(422);
    expect(again.body.error).to.include({ type: 'business_rule_error', code: 'INVALID_STATE_TRANSITION' });
    const back = await post(sub, 'reactivate');
    expect(back.status, back.text).to.equal(200);
    expect(back.body.data).to.include({ status: 'active', cancel_at_period_end: false, cancellation_reason: null });
    const transitions = await api.get(`${base(sub)}/${sub.state.subscriptionId}/transitions`, {
      key: sub.tenant.merchant_secret_key,
    });
    expect(transitions.body.data.map((t: any) => t.transition_type)).to.deep.equal([
      'reactivation',
      'cancellation',
      'creation',
    ]);
  });

  it('pause then resume (422 for resume while active and for pause while paused)', async () => {
    const sub = await running();
    expect((await post(sub, 'resume')).status).to.equal(422);
    const paused = await post(sub, 'pause', { reason: 'holiday' });
    expect(paused.status, paused.text).to.equal(200);
    expect(paused.body.data).to.include({ status: 'paused', next_billing_at: null });
    expect((await post(sub, 'pause')).status).to.equal(422);
    const resumed = await post(sub, 'resume');
    expect(resumed.status, resumed.text).to.equal(200);
    expect(resumed.body.data.status).to.equal('active');
  });

  it('cancel now ends the subscription; every later operation is a 422', async () => {
    const sub = await running();
    const res = await post(sub, 'cancel', { at_period_end: false, reason: 'moved away' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.include({ status: 'cancelled', cancellation_reason: 'moved away' });
    expect(res.body.data.cancelled_at).to.be.a('string');
    for (const [action, body] of [
      ['pause', {}],
      ['reactivate', {}],
      ['cancel', { at_period_end: false }],
    ] as const) {
      const refused = await post(sub, action, body);
      expect(refused.status, action).to.equal(422);
    }
  });

  it('change offer within the family (upgrade, amount re-synced); 422 for an offer of another family', async () => {
    const sub = await running();
    const { offer: pro } = await createOffer(sub.tenant.merchant_id, {
      familyId: sub.familyId,
      prices: [{ currency: 'USD', amount: 1999, isDefault: true }],
    });
    const res = await post(sub, 'change-offer', { to_offer_id: pro.id });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.include({ current_offer_id: pro.id, current_amount: 1999, status: 'active' });
    const { offer: elsewhere } = await createOffer(sub.tenant.merchant_id, {
      prices: [{ currency: 'USD', amount: 500, isDefault: true }],
    });
    const refused = await post(sub, 'change-offer', { to_offer_id: elsewhere.id });
    expect(refused.status).to.equal(422);
    expect(refused.body.error.code).to.equal('OFFER_NOT_IN_FAMILY');
  });

  it("change payment instrument to another of the customer's cards; 400 for someone else's", async () => {
    const sub = await running();
    const second = await saveCard(sub.tenant, sub.customerId, {
      number: '5555555555554444',
      cvc: '123',
      brand: 'mastercard',
    });
    const res = await post(sub, 'change-payment-instrument', { payment_instrument_id: second.id });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.payment_instrument_id).to.equal(second.id);
    const other = await subscribed(new Date());
    const refused = await post(sub, 'change-payment-instrument', { payment_instrument_id: other.instrumentId });
    expect(refused.status).to.equal(400);
  });
});
