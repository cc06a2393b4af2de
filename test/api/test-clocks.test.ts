/**
 * Test clocks through the HTTP API only: a clock, a customer on it, a checkout paid on the real stack
 * (charge workflow, sandbox PSP, subscription workflow), then advances that make the subscription workflow do the
 * work due — each renewal an ordinary charge at the sandbox, each step at its own instant on the clock.
 */
import { expect } from 'chai';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { createSession, sellableOffer } from '../helpers/checkout';
import { cascade, charge } from '../helpers/transactions';
import { CARDS, mintToken, openSession } from '../helpers/vault';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { advance, chargesOf, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';

/** The subscription.renewed events of the merchant, oldest first, as the period each one started. */
async function renewedPeriodStarts(tenant: Tenant): Promise<string[]> {
  const res = await api.get('/events?type=subscription.renewed&limit=100', { key: tenant.merchant_secret_key });
  expect(res.status, res.text).to.equal(200);
  return res.body.data.map((event: any) => event.data.object.current_period_start as string).sort();
}

describe('Test clocks: the API', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('POST /test-clocks creates a ready clock at frozen_time; GET and the list show it', async () => {
    const key = tenant.merchant_secret_key;
    const created = await api.post('/test-clocks', { key, body: { frozen_time: JAN_31, name: 'QA' } });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.success).to.equal(true);
    const clock = created.body.data;
    expect(clock).to.include({ frozen_time: JAN_31, status: 'ready', name: 'QA', merchant_id: tenant.merchant_id });
    expect(clock.id).to.match(/^clk_/);
    expect((await api.get(`/test-clocks/${clock.id}`, { key })).body.data).to.deep.equal(clock);
    const list = await api.get('/test-clocks', { key });
    expect(list.body.data.map((c: any) => c.id)).to.deep.equal([clock.id]);
    // Another merchant does not see it.
    const other = await createTenant();
    expect((await api.get(`/test-clocks/${clock.id}`, { key: other.merchant_secret_key })).status).to.equal(404);
  });

  it('refuses a missing or malformed frozen_time with 400 and creates nothing', async () => {
    const key = tenant.merchant_secret_key;
    for (const body of [{}, { frozen_time: 'tomorrow' }]) {
      const res = await api.post('/test-clocks', { key, body });
      expect(res.status, res.text).to.equal(400);
    }
    expect((await api.get('/test-clocks', { key })).body.data).to.deep.equal([]);
  });

  it('advancing backwards or to the same time is 422 and leaves the clock as it was', async () => {
    const key = tenant.merchant_secret_key;
    const clock = await createClock(tenant, JAN_31);
    for (const frozen_time of [JAN_31, '2027-01-30T10:00:00.000Z']) {
      const res = await api.post(`/test-clocks/${clock.id}/advance`, { key, body: { frozen_time } });
      expect(res.status, res.text).to.equal(422);
      expect(res.body.error).to.include({ type: 'business_rule_error', code: 'TEST_CLOCK_NOT_FORWARD' });
    }
    expect((await api.get(`/test-clocks/${clock.id}`, { key })).body.data).to.include({
      frozen_time: JAN_31,
      status: 'ready',
    });
  });

  it("POST /customers takes test_clock_id and the customer shows it; another merchant's clock is a 400", async () => {
    const key = tenant.merchant_secret_key;
    const clock = await createClock(tenant, JAN_31);
    const created = await api.post('/customers', { key, body: customerInput({ test_clock_id: clock.id }) });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.data.test_clock_id).to.equal(clock.id);
    const read = await api.get(`/customers/${created.body.data.id}`, { key });
    expect(read.body.data.test_clock_id).to.equal(clock.id);
    const other = await createTenant();
    const refused = await api.post('/customers', {
      key: other.merchant_secret_key,
      body: customerInput({ test_clock_id: clock.id }),
    });
    expect(refused.status, refused.text).to.equal(400);
  });
});

describe('Test clocks: subscriptions on a clock', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
  });

  it('a year of monthly renewals from Jan 31: twelve charges, each on its month end (clamped), at its own instant', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant); // monthly, USD 999
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    // The subscription starts at the clock's time, not now.
    expect(sub).to.include({
      status: 'active',
      current_period_start: JAN_31,
      current_period_end: '2027-02-28T10:00:00.000Z',
      next_billing_at: '2027-02-28T10:00:00.000Z',
    });
    const ready = await advance(tenant, clock.id, '2028-01-31T10:00:00.000Z');
    expect(ready).to.include({ status: 'ready', frozen_time: '2028-01-31T10:00:00.000Z' });
    const after = await subscriptionOf(tenant, sub.id);
    expect(after).to.include({
      status: 'active',
      cycles_completed: 13,
      current_period_start: '2028-01-31T10:00:00.000Z',
      current_period_end: '2028-02-29T10:00:00.000Z',
      next_billing_at: '2028-02-29T10:00:00.000Z',
    });
    expect(await renewedPeriodStarts(tenant)).to.deep.equal(
      [
        '2027-02-28',
        '2027-03-31',
        '2027-04-30',
        '2027-05-31',
        '2027-06-30',
        '2027-07-31',
        '2027-08-31',
        '2027-09-30',
        '2027-10-31',
        '2027-11-30',
        '2027-12-31',
        '2028-01-31',
      ].map((day) => `${day}T10:00:00.000Z`),
    );
    const charges = await chargesOf(tenant, customerId);
    expect(charges.map((tx) => [tx.status, tx.amount_authorized])).to.deep.equal(Array(13).fill(['authorized', 999]));
  });

  it('a trial converts at its end: the first real charge on the trial end, then monthly from there', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant, { freeTrial: true, trialDays: 14 });
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    expect(sub).to.include({ status: 'trialing', trial_start: JAN_31, trial_end: '2027-02-14T10:00:00.000Z' });
    await advance(tenant, clock.id, '2027-02-13T10:00:00.000Z');
    expect((await subscriptionOf(tenant, sub.id)).status).to.equal('trialing');
    await advance(tenant, clock.id, '2027-02-15T10:00:00.000Z');
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      status: 'active',
      cycles_completed: 1,
      current_period_start: '2027-02-14T10:00:00.000Z',
      current_period_end: '2027-03-14T10:00:00.000Z',
    });
    const charges = await chargesOf(tenant, customerId);
    expect(charges.map((tx) => [tx.charge_type, tx.status, tx.amount_authorized])).to.deep.equal([
      ['setup_verification', 'authorized', 0],
      ['payment', 'authorized', 999],
    ]);
  });

  it('quantity × price: three seats renew at three times the unit price', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id, { quantity: 3 });
    expect(sub.current_amount).to.equal(2997);
    await advance(tenant, clock.id, '2027-03-31T10:00:00.000Z');
    expect((await subscriptionOf(tenant, sub.id)).cycles_completed).to.equal(3);
    const charges = await chargesOf(tenant, customerId);
    expect(charges.map((tx) => [tx.status, tx.amount_authorized])).to.deep.equal(Array(3).fill(['authorized', 2997]));
  });

  it('the merchant Dashboard shows the clock of a subscription on one, advances it, and shows none for real time', async () => {
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub } = await subscribeOnClock(tenant, clock.id, offer.id);
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const { access_token: token } = await signIn('merchant', user);
    const headers = bearer(token as string, { 'x-merchant-id': tenant.merchant_id });
    const shown = await api.get(`/merchant/subscriptions/${sub.id}/test-clock`, { headers });
    expect(shown.status, shown.text).to.equal(200);
    expect(shown.body.test_clock).to.include({ id: clock.id, frozen_time: JAN_31, status: 'ready' });
    // "To the next renewal": the page sends the subscription's next_billing_at.
    const advanced = await api.post(`/merchant/test-clocks/${clock.id}/advance`, {
      headers,
      body: { frozen_time: sub.next_billing_at },
    });
    expect(advanced.status, advanced.text).to.equal(200);
    expect(advanced.body).to.include({ status: 'advancing', frozen_time: '2027-02-28T10:00:00.000Z' });
    const deadline = Date.now() + 60_000;
    const clockNow = async () =>
      (await api.get(`/merchant/subscriptions/${sub.id}/test-clock`, { headers })).body.test_clock;
    while ((await clockNow()).status !== 'ready') {
      if (Date.now() > deadline) throw new Error('still advancing');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect((await subscriptionOf(tenant, sub.id)).cycles_completed).to.equal(2);
    const backwards = await api.post(`/merchant/test-clocks/${clock.id}/advance`, {
      headers,
      body: { frozen_time: JAN_31 },
    });
    expect(backwards.status, backwards.text).to.equal(422);
    // A subscription on real time has no clock to show.
    const { offer: other } = await sellableOffer(tenant);
    const real = await subscribeOnRealTime(tenant, other.id);
    const none = await api.get(`/merchant/subscriptions/${real}/test-clock`, { headers });
    expect(none.body).to.deep.equal({ test_clock: null });
  });
});

async function subscribeOnRealTime(tenant: Tenant, offerId: string): Promise<string> {
  const checkout = await createSession(tenant, { selected_currency: 'USD', offer_id: offerId });
  const browser = await openSession(tenant, { checkoutSessionId: checkout.id });
  await mintToken(tenant, browser, CARDS.visa, {});
  const res = await charge(tenant, {
    payment_method: 'credit_card',
    charge_type: 'payment',
    country: 'US',
    checkout_session_id: checkout.id,
  });
  expect(res.status, res.text).to.equal(201);
  return (await api.get(`/transactions/${res.body.data.id}`, { key: tenant.merchant_secret_key })).body.data
    .subscription_id;
}
