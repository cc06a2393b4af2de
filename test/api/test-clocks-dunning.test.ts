/**
 * Test clocks, the unhappy paths through the HTTP API: a declined renewal's dunning run to its end on
 * the clock, a revoked card never charged, DELETE ending the clock's subscriptions, and the safety rule that a
 * customer on a clock is never charged on a live connector.
 */
import { expect } from 'chai';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { sellableOffer, createSession } from '../helpers/checkout';
import { connectorBody, connectorsPath } from '../helpers/connectors';
import { cascade, charge, override, type CascadeConnector } from '../helpers/transactions';
import { CARDS, mintToken, openSession } from '../helpers/vault';
import { OfferSchema } from '../../db/entities';
import { stack } from '../helpers/stack';
import { advance, chargesOf, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';

describe('Test clocks: dunning, revoked cards, deletion and live connectors', () => {
  let tenant: Tenant;
  let connector: CascadeConnector;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('a declined renewal goes into dunning, retries on days 1, 3, 5 and 7, is cancelled, and is never charged after', async () => {
    [connector] = await cascade(tenant, ['provider_a']);
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    await override(connector, 'insufficient_funds');
    await advance(tenant, clock.id, '2027-02-28T12:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      status: 'dunning',
      dunning_started_at: '2027-02-28T10:00:00.000Z',
      dunning_next_retry_at: '2027-03-01T10:00:00.000Z',
    });
    await advance(tenant, clock.id, '2027-03-10T10:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      status: 'cancelled',
      cancelled_at: '2027-03-07T10:00:00.000Z',
      cancellation_reason: 'dunning_exhausted',
    });
    const charged = await chargesOf(tenant, customerId);
    expect(charged.map((tx) => tx.status)).to.deep.equal(['authorized', ...Array(5).fill('failed')]);
    await advance(tenant, clock.id, '2027-06-30T10:00:00.000Z');
    expect(await chargesOf(tenant, customerId)).to.have.length(6);
  });

  it('a revoked card is never charged: the renewal goes into dunning without a provider call', async () => {
    await cascade(tenant, ['provider_a']);
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId, firstCharge } = await subscribeOnClock(tenant, clock.id, offer.id);
    const revoked = await api.delete(
      `/merchants/${tenant.merchant_id}/payment-instruments/${firstCharge.payment_instrument_id}`,
      { key: tenant.merchant_secret_key },
    );
    expect(revoked.status, revoked.text).to.equal(204);
    await advance(tenant, clock.id, '2027-02-28T12:00:00.000Z');
    expect((await subscriptionOf(tenant, sub.id)).status).to.equal('dunning');
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal(['authorized']);
  });

  it('a cycle limit that renews: the successor subscription starts on the clock at the limit and is advanced too', async () => {
    await cascade(tenant, ['provider_a']);
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    // Catalog fixture: two cycles, then a new subscription to the same offer instead of expiry.
    await stack()
      .orm.em.fork()
      .nativeUpdate(OfferSchema, { id: offer.id }, { cycleLimit: 2, renewAfterCycleLimit: true });
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    await advance(tenant, clock.id, '2027-04-15T10:00:00.000Z');
    expect((await subscriptionOf(tenant, sub.id)).status).to.equal('expired');
    const list = await api.get(`/merchants/${tenant.merchant_id}/subscriptions?customer_id=${customerId}`, {
      key: tenant.merchant_secret_key,
    });
    const successor = list.body.data.find((s: any) => s.id !== sub.id);
    expect(successor).to.include({
      status: 'active',
      current_period_start: '2027-03-31T10:00:00.000Z',
      current_period_end: '2027-04-30T10:00:00.000Z',
    });
    expect((await chargesOf(tenant, customerId)).map((tx) => tx.status)).to.deep.equal(Array(3).fill('authorized'));
  });

  it("DELETE /test-clocks/:id cancels the clock's subscriptions and keeps its customers", async () => {
    await cascade(tenant, ['provider_a']);
    const key = tenant.merchant_secret_key;
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    const deleted = await api.delete(`/test-clocks/${clock.id}`, { key });
    expect(deleted.status, deleted.text).to.equal(204);
    expect((await api.get(`/test-clocks/${clock.id}`, { key })).status).to.equal(404);
    expect(await subscriptionOf(tenant, sub.id)).to.include({ status: 'cancelled', cancelled_at: JAN_31 });
    expect((await api.get(`/customers/${customerId}`, { key })).status).to.equal(200);
  });

  it('a customer on a clock is never charged on a live connector: the live connector is skipped as test_mode_mismatch and the charge fails with no_route', async () => {
    await liveConnector(tenant);
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const checkout = await createSession(tenant, {
      selected_currency: 'USD',
      offer_id: offer.id,
      customer: customerInput({ test_clock_id: clock.id }),
    });
    const browser = await openSession(tenant, { checkoutSessionId: checkout.id });
    await mintToken(tenant, browser, CARDS.visa, {});
    const res = await charge(tenant, {
      payment_method: 'credit_card',
      charge_type: 'payment',
      country: 'US',
      checkout_session_id: checkout.id,
    });
    const tx = (await api.get(`/transactions/${res.body.data.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(tx).to.include({ status: 'failed', failure_code: 'no_route', subscription_id: null });
    expect(tx.timeline).to.deep.equal([]);
    const routing = await api.get(`/transactions/${tx.id}/routing`, { key: tenant.merchant_secret_key });
    expect(routing.body.data.skipped.map((skip: any) => skip.reason)).to.deep.equal(['test_mode_mismatch']);
  });
});

/** One live-mode connector as the merchant's only route (never called here: routing skips it for a clock's customer). */
async function liveConnector(tenant: Tenant): Promise<void> {
  const key = tenant.merchant_secret_key;
  const created = await api.post(connectorsPath(tenant.merchant_id), {
    key,
    body: connectorBody('provider_a', { name: 'Live', is_test_mode: false }),
  });
  expect(created.status, created.text).to.equal(201);
  const base = `/merchants/${tenant.merchant_id}/routing-profiles`;
  const profile = await api.post(base, {
    key,
    body: { name: 'Live only', payment_method: '*', default_merchant_connector_id: created.body.id },
  });
  expect(profile.status, profile.text).to.equal(201);
  const activated = await api.patch(`${base}/${profile.body.id}`, { key, body: { is_active: true } });
  expect(activated.status, activated.text).to.equal(200);
}
