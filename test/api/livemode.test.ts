/**
 * Test and live are apart: a transaction carries the mode of its charge (its plan's mode; a customer on a test clock
 * makes a test charge), its subscription and every event and webhook delivery about it carry the same `livemode`,
 * every list filters on it, and the Overview shows live data unless asked for test data. In production a test-mode
 * connector can be created only once the organization's owner has switched test connectors on.
 */
import { expect } from 'chai';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { rows } from '../helpers/db';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { connectorBody, connectorsPath } from '../helpers/connectors';
import { bearer, createMerchantUser, createOrganizationUser, signIn } from '../helpers/dashboard';
import { modeCascade } from '../helpers/connector-modes';
import { cardCharge, cardToken, charge } from '../helpers/transactions';
import { createConfig, startReceiver, waitUntil, type Receiver } from '../helpers/webhooks';
import { createOffer } from '../helpers/catalog';
import { createClock, subscribeOnClock } from '../helpers/test-clocks';

const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);

describe('livemode: test and live are apart', () => {
  let tenant: Tenant;
  const key = () => tenant.merchant_secret_key;

  beforeEach(async () => {
    tenant = await createTenant();
  });

  const pay = async (extra: Record<string, unknown> = {}) => {
    const res = await charge(tenant, cardCharge(await cardToken(tenant), extra));
    expect(res.status, res.text).to.equal(201);
    return res.body.data;
  };

  it("a transaction's livemode is its plan's mode, and its events carry the same livemode", async () => {
    // The plan's first connector is live: a charge is live (and fails: the live host is unreachable from here); a
    // customer on a test clock makes a test charge, on the test-mode connector.
    await modeCascade(tenant, [{ live: true }, { live: false }]);
    const live = await pay();
    expect(live).to.include({ status: 'failed', livemode: true });
    const clock = await createClock(tenant, '2027-01-10T10:00:00Z');
    const customer = await api.post('/customers', { key: key(), body: customerInput({ test_clock_id: clock.id }) });
    expect(customer.status, customer.text).to.equal(201);
    const test = await pay({ customer_id: customer.body.data.id });
    expect(test).to.include({ status: 'authorized', livemode: false });

    const events = await api.get('/events', { key: key(), query: { limit: 100 } });
    expect(events.status, events.text).to.equal(200);
    for (const event of events.body.data) {
      const object = event.data.object;
      if (object.id === test.id) expect(event.livemode, event.type).to.equal(false);
      if (object.id === live.id) expect(event.livemode, event.type).to.equal(true);
    }
    const testEvents = await api.get('/events', { key: key(), query: { livemode: 'false', limit: 100 } });
    expect(new Set(testEvents.body.data.map((event: any) => event.data.object.id))).to.deep.equal(new Set([test.id]));

    const listed = async (livemode: string) =>
      ids((await api.get('/transactions', { key: key(), query: { livemode } })).body.data);
    expect(await listed('false')).to.deep.equal([test.id]);
    expect(await listed('true')).to.deep.equal([live.id]);
    expect((await api.get(`/transactions/${test.id}`, { key: key() })).body.data.livemode).to.equal(false);
  });

  it('a livemode filter that is not true or false is a 400, never a 500', async () => {
    for (const path of ['/transactions', '/events', `/merchants/${tenant.merchant_id}/subscriptions`]) {
      const res = await api.get(path, { key: key(), query: { livemode: 'maybe' } });
      expect(res.status, `${path}: ${res.text}`).to.equal(400);
    }
  });

  it('a subscription of a customer on a test clock is test data: livemode false, and listed only under livemode=false', async () => {
    await modeCascade(tenant, [{ live: false }]);
    const { offer } = await createOffer(tenant.merchant_id, {
      prices: [{ currency: 'USD', amount: 999, isDefault: true }],
    });
    const clock = await createClock(tenant, '2027-01-10T10:00:00Z');
    const { sub, firstCharge } = await subscribeOnClock(tenant, clock.id, offer.id);
    expect(firstCharge.livemode).to.equal(false);
    expect(sub.livemode).to.equal(false);
    const path = `/merchants/${tenant.merchant_id}/subscriptions`;
    const listed = async (livemode: string) =>
      ids((await api.get(path, { key: key(), query: { livemode } })).body.data);
    expect(await listed('false')).to.deep.equal([sub.id]);
    expect(await listed('true')).to.deep.equal([]);
  });

  describe('webhook deliveries', () => {
    let receiver: Receiver;
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(async () => {
      await receiver.close();
    });

    it("a delivery inherits its event's livemode: in the payload's envelope and on the delivery record", async () => {
      await createConfig(tenant, { url: receiver.url('/hook'), event_filter: ['transaction.authorized'] });
      await modeCascade(tenant, [{ live: false }]);
      const test = await pay();
      const [received] = await receiver.waitFor((requests) => requests.length > 0);
      const envelope = JSON.parse(received.body);
      expect(envelope).to.include({ type: 'transaction.authorized', livemode: false });
      expect(envelope.data.object).to.include({ id: test.id, livemode: false });
      const path = `/merchants/${tenant.merchant_id}/webhook-deliveries`;
      const deliveries = await waitUntil(async () => {
        const res = await api.get(path, { key: key(), query: { livemode: 'false' } });
        return res.body.data?.length ? res.body.data : undefined;
      });
      expect(deliveries[0]).to.include({ livemode: false });
      expect(deliveries[0].payload.livemode).to.equal(false);
      expect((await api.get(path, { key: key(), query: { livemode: 'true' } })).body.data).to.deep.equal([]);
    });
  });

  it('the Overview counts live payments by default and test payments only with livemode=false', async () => {
    await modeCascade(tenant, [{ live: false }]);
    await pay();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const { access_token: token } = await signIn('merchant', user);
    const headers = bearer(token as string, { 'x-merchant-id': tenant.merchant_id });
    const overview = async (query: Record<string, string> = {}) => {
      const res = await api.get('/merchant/overview', { headers, query });
      expect(res.status, res.text).to.equal(200);
      return res.body;
    };
    const live = await overview();
    expect(live.livemode).to.equal(true);
    expect(live.payments).to.include({ approved: 0 });
    expect(live.connectors).to.deep.equal([]);
    const test = await overview({ livemode: 'false' });
    expect(test.livemode).to.equal(false);
    expect(test.payments).to.include({ approved: 1 });
    expect(test.connectors.map((c: any) => c.approved)).to.deep.equal([1]);
  });

  describe('in production', () => {
    let production: RunningApi;
    before(async () => {
      production = await startApi({ ...stack().config, env: 'production' }, 0);
    });
    after(async () => {
      await production?.stop();
    });

    const createTestConnector = () =>
      api.post(connectorsPath(tenant.merchant_id), {
        key: key(),
        body: connectorBody('provider_a', { name: 'Sandbox', is_test_mode: true }),
        baseUrl: production.url,
      });
    const orgSession = async (role: 'owner' | 'admin') => {
      const user = await createOrganizationUser([tenant.organization_id], { role });
      const { access_token: token } = await signIn('organization', user);
      return { userId: user.id, headers: bearer(token as string, { 'x-organization-id': tenant.organization_id }) };
    };
    const switchTestConnectors = (headers: Record<string, string>, enabled: boolean) =>
      api.patch('/org/settings', { headers, body: { test_connectors_enabled: enabled }, baseUrl: production.url });

    it('refuses a test-mode connector with 422 TEST_CONNECTORS_DISABLED and creates nothing, while live connectors are created', async () => {
      expectError(await createTestConnector(), 422, 'business_rule_error', 'TEST_CONNECTORS_DISABLED');
      expect(
        await rows('select id from merchant_connectors where merchant_id = ?', [tenant.merchant_id]),
      ).to.deep.equal([]);
      const live = await api.post(connectorsPath(tenant.merchant_id), {
        key: key(),
        body: connectorBody('provider_a', { name: 'Live', is_test_mode: false }),
        baseUrl: production.url,
      });
      expect(live.status, live.text).to.equal(201);
    });

    it("an organization owner's switch allows test-mode connectors, is recorded in the activity log, and switching off refuses them again", async () => {
      const owner = await orgSession('owner');
      const on = await switchTestConnectors(owner.headers, true);
      expect(on.status, on.text).to.equal(200);
      expect(on.body).to.include({ test_connectors_enabled: true });
      const read = await api.get('/org/settings', { headers: owner.headers, baseUrl: production.url });
      expect(read.body).to.include({ test_connectors_enabled: true });
      expect((await createTestConnector()).status).to.equal(201);

      const activity = await api.get(`/merchants/${tenant.merchant_id}/activity`, {
        key: tenant.organization_secret_key,
      });
      const switched = activity.body.data.filter((entry: any) => entry.action === 'organization.settings_updated');
      expect(switched).to.have.length(1);
      expect(switched[0].changes).to.deep.equal({ test_connectors_enabled: { from: false, to: true } });
      expect(switched[0].actor).to.deep.equal({ type: 'dashboard_user', id: owner.userId });

      expect((await switchTestConnectors(owner.headers, false)).status).to.equal(200);
      expectError(await createTestConnector(), 422, 'business_rule_error', 'TEST_CONNECTORS_DISABLED');
    });

    it('only an organization owner may switch test connectors: an admin gets 403 and nothing changes', async () => {
      const admin = await orgSession('admin');
      expectError(await switchTestConnectors(admin.headers, true), 403);
      const [org] = await rows('select test_connectors_enabled from organizations where id = ?', [
        tenant.organization_id,
      ]);
      expect(org.test_connectors_enabled).to.equal(false);
    });
  });
});
