/**
 * Rule: a test clock is bounded work. Any merchant can make clocks, and one advance runs every renewal due on the
 * clock on the worker and Temporal every tenant shares, so the work a merchant can ask for is capped: clocks per
 * merchant, customers per clock, how far one advance and the clock as a whole may move, renewals per advance, and
 * one advance at a time per merchant. Each refusal is a 422 naming the limit, and changes nothing.
 */
import { expect } from 'chai';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { sellableOffer } from '../helpers/checkout';
import { expectError } from '../helpers/envelope';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { withWorkerDown } from '../helpers/stack';
import { cascade } from '../helpers/transactions';
import { advance, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';

describe('Rule: a test clock is bounded work', () => {
  let tenant: Tenant;
  let key: string;
  beforeEach(async () => {
    tenant = await createTenant();
    key = tenant.merchant_secret_key;
  });

  const clockOf = async (id: string) => {
    const res = await api.get(`/test-clocks/${id}`, { key });
    expect(res.status, res.text).to.equal(200);
    return res.body.data;
  };

  it('one advance moves the clock at most 12 months: further (the year 9999) is 422 TEST_CLOCK_ADVANCE_TOO_FAR naming the limit, and the clock stays where it was', async () => {
    const clock = await createClock(tenant, JAN_31);
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const { access_token: token } = await signIn('merchant', user);
    const dashboard = { headers: bearer(token as string, { 'x-merchant-id': tenant.merchant_id }) };
    const asKey = { key };
    for (const [path, auth] of [
      [`/test-clocks/${clock.id}/advance`, asKey],
      [`/merchant/test-clocks/${clock.id}/advance`, dashboard],
    ] as const) {
      const res = await api.post(path, { ...auth, body: { frozen_time: '9999-12-31T00:00:00.000Z' } });
      const error = expectError(res, 422, 'business_rule_error', 'TEST_CLOCK_ADVANCE_TOO_FAR');
      expect(error.details).to.deep.equal({
        test_clock_id: clock.id,
        limit_months: 12,
        frozen_time: JAN_31,
        requested_frozen_time: '9999-12-31T00:00:00.000Z',
        latest_frozen_time: '2028-01-31T10:00:00.000Z',
      });
      expect(await clockOf(clock.id)).to.deep.equal(clock);
    }
    const oneDayTooFar = await api.post(`/test-clocks/${clock.id}/advance`, {
      key,
      body: { frozen_time: '2028-02-01T10:00:00.000Z' },
    });
    expectError(oneDayTooFar, 422, 'business_rule_error', 'TEST_CLOCK_ADVANCE_TOO_FAR');
    // Exactly 12 months is allowed.
    expect(await advance(tenant, clock.id, '2028-01-31T10:00:00.000Z')).to.include({ status: 'ready' });
  });

  it('a clock never moves past 24 months after the time it was created at: 422 TEST_CLOCK_HORIZON_REACHED, the clock unchanged', async () => {
    const clock = await createClock(tenant, JAN_31);
    await advance(tenant, clock.id, '2028-01-31T10:00:00.000Z');
    await advance(tenant, clock.id, '2029-01-31T10:00:00.000Z');
    const res = await api.post(`/test-clocks/${clock.id}/advance`, {
      key,
      body: { frozen_time: '2029-01-31T10:00:00.001Z' },
    });
    const error = expectError(res, 422, 'business_rule_error', 'TEST_CLOCK_HORIZON_REACHED');
    expect(error.details).to.deep.equal({
      test_clock_id: clock.id,
      limit_months: 24,
      frozen_time: '2029-01-31T10:00:00.000Z',
      requested_frozen_time: '2029-01-31T10:00:00.001Z',
      latest_frozen_time: '2029-01-31T10:00:00.000Z',
    });
    expect(await clockOf(clock.id)).to.include({ status: 'ready', frozen_time: '2029-01-31T10:00:00.000Z' });
  });

  it('a merchant has at most 10 live test clocks: the 11th is 422 TEST_CLOCK_LIMIT_REACHED and creates nothing; deleting one frees a place', async () => {
    const clocks = [];
    for (let i = 0; i < 10; i += 1) clocks.push(await createClock(tenant, JAN_31));
    const res = await api.post('/test-clocks', { key, body: { frozen_time: JAN_31 } });
    const error = expectError(res, 422, 'business_rule_error', 'TEST_CLOCK_LIMIT_REACHED');
    expect(error.details).to.deep.equal({ limit: 10, test_clocks: 10 });
    const list = await api.get('/test-clocks', { key, query: { limit: '100' } });
    expect(list.body.data).to.have.length(10);
    expect((await api.delete(`/test-clocks/${clocks[0].id}`, { key })).status).to.equal(204);
    await createClock(tenant, JAN_31);
  });

  it('a test clock holds at most 10 customers: the 11th is 422 TEST_CLOCK_CUSTOMER_LIMIT_REACHED and is not created, at POST /customers and at a checkout', async () => {
    const clock = await createClock(tenant, JAN_31);
    for (let i = 0; i < 10; i += 1) {
      const res = await api.post('/customers', { key, body: customerInput({ test_clock_id: clock.id }) });
      expect(res.status, res.text).to.equal(201);
    }
    const eleventh = customerInput({ test_clock_id: clock.id });
    const refused = await api.post('/customers', { key, body: eleventh });
    const error = expectError(refused, 422, 'business_rule_error', 'TEST_CLOCK_CUSTOMER_LIMIT_REACHED');
    expect(error.details).to.deep.equal({ test_clock_id: clock.id, limit: 10, customers: 10 });
    const { offer } = await sellableOffer(tenant);
    const checkout = await api.post('/checkout-sessions', {
      key,
      body: { selected_currency: 'USD', offer_id: offer.id, customer: eleventh },
    });
    expectError(checkout, 422, 'business_rule_error', 'TEST_CLOCK_CUSTOMER_LIMIT_REACHED');
    const customers = await api.get('/customers', { key, query: { limit: '100' } });
    expect(customers.body.data.map((c: any) => c.email)).to.not.include(eleventh.email);
    expect(customers.body.data).to.have.length(10);
    // Another clock of the merchant still takes customers.
    const other = await createClock(tenant, JAN_31);
    const res = await api.post('/customers', { key, body: customerInput({ test_clock_id: other.id }) });
    expect(res.status, res.text).to.equal(201);
  });

  it('one advance runs at most 1000 renewals: three daily plans for 12 months (1095) is 422 TEST_CLOCK_RENEWAL_LIMIT_REACHED and bills nothing; a shorter advance runs', async function () {
    this.timeout(180_000);
    await cascade(tenant, ['provider_a']);
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant, { billingCycle: 'daily' });
    const subs = [];
    for (let i = 0; i < 3; i += 1) subs.push((await subscribeOnClock(tenant, clock.id, offer.id)).sub);
    const res = await api.post(`/test-clocks/${clock.id}/advance`, {
      key,
      body: { frozen_time: '2028-01-31T10:00:00.000Z' },
    });
    const error = expectError(res, 422, 'business_rule_error', 'TEST_CLOCK_RENEWAL_LIMIT_REACHED');
    expect(error.details).to.deep.equal({
      test_clock_id: clock.id,
      limit: 1000,
      renewals: 1095,
      requested_frozen_time: '2028-01-31T10:00:00.000Z',
    });
    expect(await clockOf(clock.id)).to.include({ status: 'ready', frozen_time: JAN_31 });
    for (const sub of subs) expect(await subscriptionOf(tenant, sub.id)).to.include({ cycles_completed: 1 });
    await advance(tenant, clock.id, '2027-02-03T10:00:00.000Z');
    for (const sub of subs) expect(await subscriptionOf(tenant, sub.id)).to.include({ cycles_completed: 4 });
  });

  it('a merchant advances one clock at a time: another clock of the merchant while one advances is 422 TEST_CLOCK_MERCHANT_ADVANCING, unchanged; another merchant is not held', async () => {
    const first = await createClock(tenant, JAN_31);
    const second = await createClock(tenant, JAN_31);
    const neighbour = await createTenant();
    const theirs = await createClock(neighbour, JAN_31);
    // With the worker down the first advance cannot finish: it is running for as long as the test needs.
    await withWorkerDown(async () => {
      const started = await api.post(`/test-clocks/${first.id}/advance`, {
        key,
        body: { frozen_time: '2027-02-28T10:00:00.000Z' },
      });
      expect(started.status, started.text).to.equal(200);
      const refused = await api.post(`/test-clocks/${second.id}/advance`, {
        key,
        body: { frozen_time: '2027-02-28T10:00:00.000Z' },
      });
      const error = expectError(refused, 422, 'business_rule_error', 'TEST_CLOCK_MERCHANT_ADVANCING');
      expect(error.details).to.deep.equal({ test_clock_id: second.id, advancing_test_clock_id: first.id, limit: 1 });
      expect(await clockOf(second.id)).to.deep.equal(second);
      const other = await api.post(`/test-clocks/${theirs.id}/advance`, {
        key: neighbour.merchant_secret_key,
        body: { frozen_time: '2027-02-28T10:00:00.000Z' },
      });
      expect(other.status, other.text).to.equal(200);
    });
    // Once the first is ready, the second may advance.
    const deadline = Date.now() + 60_000;
    while ((await clockOf(first.id)).status !== 'ready') {
      if (Date.now() > deadline) throw new Error('first clock still advancing');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await advance(tenant, second.id, '2027-02-28T10:00:00.000Z')).to.include({ status: 'ready' });
  });
});
