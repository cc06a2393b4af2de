/**
 * Test clocks, the contract lines the other clock suites leave out, through the HTTP API on the real
 * stack: organization keys name the merchant as elsewhere; the Temporal UI finds a clock's workflows by the
 * TestClockId search attribute; and the longest advance allowed: a year of a daily plan in one advance.
 */
import { expect } from 'chai';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { sellableOffer } from '../helpers/checkout';
import { expectError } from '../helpers/envelope';
import { stack, withWorkerDown } from '../helpers/stack';
import { cascade } from '../helpers/transactions';
import { advance, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';

describe('Test clocks: organization keys, the Temporal search attribute, a year of a daily plan', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('an organization key names the merchant with merchant_id (body or query); without it the request is refused and nothing is created', async () => {
    const org = tenant.organization_secret_key;
    const merchant_id = tenant.merchant_id;
    const created = await api.post('/test-clocks', { key: org, body: { merchant_id, frozen_time: JAN_31 } });
    expect(created.status, created.text).to.equal(201);
    const clock = created.body.data;
    expect(clock).to.include({ merchant_id, frozen_time: JAN_31, status: 'ready', name: null });
    // The merchant's own key sees the same clock.
    const own = await api.get(`/test-clocks/${clock.id}`, { key: tenant.merchant_secret_key });
    expect(own.body.data).to.deep.equal(clock);
    const read = await api.get(`/test-clocks/${clock.id}`, { key: org, query: { merchant_id } });
    expect(read.body.data).to.deep.equal(clock);
    const list = await api.get('/test-clocks', { key: org, query: { merchant_id } });
    expect(list.body.data.map((c: any) => c.id)).to.deep.equal([clock.id]);
    const advanced = await api.post(`/test-clocks/${clock.id}/advance`, {
      key: org,
      body: { merchant_id, frozen_time: '2027-02-01T10:00:00.000Z' },
    });
    expect(advanced.status, advanced.text).to.equal(200);

    expectError(
      await api.post('/test-clocks', { key: org, body: { frozen_time: JAN_31 } }),
      403,
      'authorization_error',
    );
    // Another organization's merchant is not reachable with this key.
    const other = await createTenant();
    expectError(
      await api.post('/test-clocks', { key: org, body: { merchant_id: other.merchant_id, frozen_time: JAN_31 } }),
      403,
      'authorization_error',
    );
    const all = await api.get('/test-clocks', { key: tenant.merchant_secret_key });
    expect(all.body.data.map((c: any) => c.id)).to.deep.equal([clock.id]);
  });

  it('a second advance while one is running is 422 TEST_CLOCK_ADVANCING and changes nothing; the first one ends', async () => {
    await cascade(tenant, ['provider_a']);
    const key = tenant.merchant_secret_key;
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub } = await subscribeOnClock(tenant, clock.id, offer.id);
    // With the worker down the advance cannot progress: the clock is advancing for as long as the test needs.
    await withWorkerDown(async () => {
      const first = await api.post(`/test-clocks/${clock.id}/advance`, {
        key,
        body: { frozen_time: '2027-02-28T12:00:00.000Z' },
      });
      expect(first.status, first.text).to.equal(200);
      const second = await api.post(`/test-clocks/${clock.id}/advance`, {
        key,
        body: { frozen_time: '2027-03-31T12:00:00.000Z' },
      });
      expectError(second, 422, 'business_rule_error', 'TEST_CLOCK_ADVANCING');
      const read = await api.get(`/test-clocks/${clock.id}`, { key });
      expect(read.body.data).to.include({ status: 'advancing', frozen_time: '2027-02-28T12:00:00.000Z' });
    });
    const deadline = Date.now() + 120_000;
    for (;;) {
      const read = await api.get(`/test-clocks/${clock.id}`, { key });
      if (read.body.data?.status === 'ready') break;
      if (Date.now() > deadline) throw new Error('still advancing');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      cycles_completed: 2,
      current_period_start: '2027-02-28T10:00:00.000Z',
    });
  });

  it('the Temporal UI finds the subscription workflows of a clock by the TestClockId search attribute', async () => {
    await cascade(tenant, ['provider_a']);
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub } = await subscribeOnClock(tenant, clock.id, offer.id);
    const client = stack().api.deps.temporal.client;
    // Visibility is eventually consistent: look until the workflow is listed.
    const deadline = Date.now() + 30_000;
    let found: string[] = [];
    while (Date.now() < deadline) {
      found = [];
      for await (const workflow of client.workflow.list({ query: `TestClockId = '${clock.id}'` })) {
        found.push(workflow.workflowId);
      }
      if (found.length) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(found).to.deep.equal([`subscription-${sub.id}`]);
  });

  it('the longest advance (12 months): a year of a daily plan renews 365 times in one advance, each on its own day', async function () {
    this.timeout(900_000);
    await cascade(tenant, ['provider_a']);
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant, { billingCycle: 'daily' });
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    expect(sub.next_billing_at).to.equal('2027-02-01T10:00:00.000Z');
    await advance(tenant, clock.id, '2028-01-31T10:00:00.000Z', 840_000);
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      status: 'active',
      cycles_completed: 366,
      current_period_start: '2028-01-31T10:00:00.000Z',
      next_billing_at: '2028-02-01T10:00:00.000Z',
    });
    // One charge a day, every one paid: the first charge and 365 renewals (counted by the list's total).
    const total = async (query: Record<string, string>) => {
      const res = await api.get('/transactions', {
        key: tenant.merchant_secret_key,
        query: { customer_reference: customerId, limit: '1', ...query },
      });
      expect(res.status, res.text).to.equal(200);
      return res.body.meta.pagination.total;
    };
    expect([await total({}), await total({ status: 'authorized' })]).to.deep.equal([366, 366]);
  });
});
