/**
 * The merchant Dashboard's reads and payment operations (docs/api-decisions.md, "Merchant Dashboard web app"): a
 * merchant user's session with x-merchant-id reaches transactions, orders, webhooks, connectors and the catalog
 * at /merchant/…, scoped to that merchant, bare with flat meta; API keys are refused there; writes name the person.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { connectorBody, CONNECTOR_KEYS } from '../helpers/connectors';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { createConfig, recordTestEvent, startReceiver, waitUntil, type Receiver } from '../helpers/webhooks';
import { expectError } from '../helpers/envelope';
import { bootstrapMerchantOwner } from '../../domain/tenants/tenants.bootstrap';
import { stack } from '../helpers/stack';
import { NEW_PASSWORD } from '../helpers/dashboard';
import { startApi } from '../../api/server';

async function merchantSession(tenant: Tenant, merchantIds = [tenant.merchant_id]): Promise<Record<string, string>> {
  const user = await createMerchantUser(tenant.organization_id, merchantIds);
  const { access_token: token } = await signIn('merchant', user);
  return bearer(token as string, { 'x-merchant-id': tenant.merchant_id });
}

describe('Merchant Dashboard: payments, webhooks, connectors and catalog reads', function () {
  this.timeout(60_000);
  let tenant: Tenant;
  let headers: Record<string, string>;
  let authorized: any;
  let held: any;

  before(async () => {
    tenant = await createTenant();
    headers = await merchantSession(tenant);
    await cascade(tenant, ['provider_a']);
    const paid = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(paid.status, paid.text).to.equal(201);
    authorized = paid.body.data;
    const hold = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false, amount: 2500 }));
    expect(hold.status, hold.text).to.equal(201);
    held = hold.body.data;
  });

  it('lists and reads transactions, attempts and orders of the header merchant, bare with flat meta', async () => {
    const list = await api.get('/merchant/transactions', { headers, query: { status: 'authorized' } });
    expect(list.status, list.text).to.equal(200);
    expect(list.body.data.map((tx: any) => tx.id)).to.deep.equal([authorized.id]);
    expect(list.body.meta).to.include({ page: 1, total: 1 });
    expect(list.body).to.not.have.property('success');

    const one = await api.get(`/merchant/transactions/${authorized.id}`, { headers });
    expect(one.status, one.text).to.equal(200);
    expect(one.body).to.include({ id: authorized.id, status: 'authorized' });
    const attempts = await api.get(`/merchant/transactions/${authorized.id}/attempts`, { headers });
    expect(attempts.status, attempts.text).to.equal(200);
    expect(attempts.body[0]).to.include({ attempt_number: 1, provider_slug: 'provider_a', status: 'success' });

    const orders = await api.get('/merchant/orders', { headers });
    expect(orders.body.data.map((o: any) => o.id)).to.include(authorized.order_id);
    const order = await api.get(`/merchant/orders/${authorized.order_id}`, { headers });
    expect(order.status, order.text).to.equal(200);
    expect(order.body.status_history.length).to.be.greaterThan(0);
  });

  it("never reaches another merchant's resources: 404 for its transaction, 403 for a merchant the user is not a member of", async () => {
    const other = await createTenant();
    await cascade(other, ['provider_a']);
    const theirs = await charge(other, cardCharge(await cardToken(other)));
    expectError(await api.get(`/merchant/transactions/${theirs.body.data.id}`, { headers }), 404);
    expectError(await api.get(`/merchant/orders/${theirs.body.data.order_id}`, { headers }), 404);
    const list = await api.get('/merchant/transactions', { headers, query: { limit: 100 } });
    expect(list.body.data.map((tx: any) => tx.id)).to.not.include(theirs.body.data.id);
    const foreign = { ...headers, 'x-merchant-id': other.merchant_id };
    expectError(await api.get('/merchant/transactions', { headers: foreign }), 403);
  });

  it('refuses merchant_id in the query (the header names the merchant) and API keys on /merchant/ routes', async () => {
    const other = await addMerchant(tenant);
    const res = await api.get('/merchant/transactions', { headers, query: { merchant_id: other.merchantId } });
    expectError(res, 400, 'validation_error');
    expectError(await api.get('/merchant/transactions', { key: tenant.merchant_secret_key }), 401);
    expectError(await api.get('/merchant/connectors', { key: tenant.organization_secret_key }), 401);
  });

  it('captures a pre-authorized payment and refunds part of it; void is refused once captured (422)', async () => {
    const captured = await api.post(`/merchant/transactions/${held.id}/capture`, { headers, body: {} });
    expect(captured.status, captured.text).to.equal(200);
    expect(captured.body).to.include({ id: held.id, status: 'authorized', amount_captured: 2500 });
    expectError(await api.post(`/merchant/transactions/${held.id}/void`, { headers, body: {} }), 422);
    const refund = await api.post(`/merchant/transactions/${held.id}/refunds`, {
      headers,
      body: { amount: 500, reason: 'Damaged item' },
    });
    expect(refund.status, refund.text).to.equal(201);
    expect(refund.body).to.include({ transaction_id: held.id, amount: 500 });
    const refunds = await api.get(`/merchant/transactions/${held.id}/refunds`, { headers });
    expect(refunds.body.data.map((r: any) => r.id)).to.deep.equal([refund.body.id]);
  });

  it('a refund retried with the same Idempotency-Key is one refund (keys are per person and merchant)', async () => {
    const paid = await charge(tenant, cardCharge(await cardToken(tenant)));
    const tx = paid.body.data;
    const once = { ...headers, 'idempotency-key': `refund-${tx.id}` };
    const first = await api.post(`/merchant/transactions/${tx.id}/refunds`, { headers: once, body: { amount: 100 } });
    expect(first.status, first.text).to.equal(201);
    const again = await api.post(`/merchant/transactions/${tx.id}/refunds`, { headers: once, body: { amount: 100 } });
    // A replay answers 200 with the first body (docs/api-decisions.md, idempotency).
    expect(again.status, again.text).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body.id).to.equal(first.body.id);
    // Another person on the same merchant using the same key string makes their own refund.
    const colleague = { ...(await merchantSession(tenant)), 'idempotency-key': `refund-${tx.id}` };
    const theirs = await api.post(`/merchant/transactions/${tx.id}/refunds`, {
      headers: colleague,
      body: { amount: 100 },
    });
    expect(theirs.status, theirs.text).to.equal(201);
    expect(theirs.body.id).to.not.equal(first.body.id);
    const refunds = await api.get(`/merchant/transactions/${tx.id}/refunds`, { headers });
    expect(refunds.body.data).to.have.length(2);
  });

  it('adds a connector as the signed-in person, tests its credentials and lists its webhook logs', async () => {
    const created = await api.post('/merchant/connectors', { headers, body: connectorBody('provider_b') });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.have.all.keys(CONNECTOR_KEYS);
    expect(created.body.merchant_id).to.equal(tenant.merchant_id);
    const activity = await rows(
      "select actor_type, actor_id from merchant_activities where merchant_id = ? and action = 'connector.created' order by created_at desc limit 1",
      [tenant.merchant_id],
    );
    expect(activity[0].actor_type).to.equal('dashboard_user');

    const list = await api.get('/merchant/connectors', { headers });
    expect(list.body.data.map((c: any) => c.id)).to.include(created.body.id);
    const test = await api.post(`/merchant/connectors/${created.body.id}/test`, { headers });
    expect(test.status, test.text).to.equal(200);
    expect(test.body.ok).to.equal(true);
    const inbound = await api.get(`/merchant/connectors/${created.body.id}/webhooks/inbounds`, { headers });
    expect(inbound.status, inbound.text).to.equal(200);
    expect(inbound.body).to.deep.equal({ data: [], meta: inbound.body.meta });
    const invalid = await api.get(`/merchant/connectors/${created.body.id}/webhooks/invalid`, { headers });
    expect(invalid.status, invalid.text).to.equal(200);

    const other = await createTenant();
    const theirs = await api.post(`/merchants/${other.merchant_id}/connectors`, {
      key: other.merchant_secret_key,
      body: connectorBody('provider_a'),
    });
    expectError(await api.post(`/merchant/connectors/${theirs.body.id}/test`, { headers }), 404);
    expectError(await api.get(`/merchant/connectors/${theirs.body.id}/webhooks/inbounds`, { headers }), 404);
  });

  it('reads the provider catalog with its credential JSON Schemas, products, offers and payment instruments', async () => {
    const providers = await api.get('/merchant/payment-providers', { headers });
    expect(providers.status, providers.text).to.equal(200);
    const providerA = providers.body.data.find((p: any) => p.slug === 'provider_a');
    expect(providerA.credential_schemas.api_key.properties).to.have.property('secret_key');
    for (const path of ['/merchant/products', '/merchant/offers', '/merchant/payment-instruments']) {
      const res = await api.get(path, { headers });
      expect(res.status, `${path}: ${res.text}`).to.equal(200);
      expect(res.body.meta).to.include({ page: 1 });
    }
  });

  describe('webhooks', () => {
    let receiver: Receiver;
    before(async () => (receiver = await startReceiver()));
    after(() => receiver.close());

    it('lists endpoints and deliveries, and redelivers an event as the signed-in person', async () => {
      const config = await createConfig(tenant, { url: receiver.url(), event_filter: ['transaction.refunded'] });
      const configs = await api.get('/merchant/webhook-configs', { headers });
      expect(configs.body.data.map((c: any) => c.id)).to.include(config.id);
      expect(configs.text).to.not.include('whsec_');
      const event = await recordTestEvent(tenant, 'transaction.refunded');
      const delivered = await waitUntil(async () => {
        const res = await api.get('/merchant/webhook-deliveries', { headers, query: { webhook_id: config.id } });
        return res.body.data.length > 0 ? res.body.data : undefined;
      });
      expect(delivered[0]).to.include({ event_id: event.id, status: 'success', http_status_code: 200 });
      const again = await api.post(`/merchant/webhook-configs/${config.id}/redeliver`, {
        headers,
        body: { event_id: event.id },
      });
      expect(again.status, again.text).to.equal(202);
      await waitUntil(async () => {
        const res = await api.get('/merchant/webhook-deliveries', { headers, query: { webhook_id: config.id } });
        return res.body.data.some((d: any) => d.trigger === 'manual') || undefined;
      });
    });
  });
});

describe('Bootstrap: the first merchant Dashboard owner', () => {
  it('has no password until the one-time link sets it; then signs in at the merchant login as owner', async () => {
    const tenant = await createTenant();
    const email = `merchant-owner-${Date.now()}@example.com`;
    const owner = await bootstrapMerchantOwner(
      stack().orm.em.fork(),
      tenant.organization_id,
      tenant.merchant_id,
      email,
    );
    expectError(await api.post('/auth/merchant/login', { body: { email, password: NEW_PASSWORD } }), 401);
    const set = await api.post('/auth/reset-password', {
      body: { token: owner.password_setup_token, new_password: NEW_PASSWORD },
    });
    expect(set.status, set.text).to.equal(200);
    const session = await signIn('merchant', { email, password: NEW_PASSWORD });
    expect(session.user.merchants[0]).to.include({ merchant_id: tenant.merchant_id, role: 'owner', status: 'active' });
  });
});

describe('Merchant Dashboard credential checks are throttled like the organization route', () => {
  it('answers 429 past the per-connector budget', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const { config } = stack();
    const app = await startApi({ ...config, dashboard: { ...config.dashboard, credentialChecksPerConnector: 2 } }, 0);
    try {
      const token = (await signIn('merchant', user, app.url)).access_token as string;
      const headers = bearer(token, { 'x-merchant-id': tenant.merchant_id });
      const created = await api.post('/merchant/connectors', {
        baseUrl: app.url,
        headers,
        body: connectorBody('provider_b'),
      });
      expect(created.status, created.text).to.equal(201);
      const check = () => api.post(`/merchant/connectors/${created.body.id}/test`, { baseUrl: app.url, headers });
      for (let i = 0; i < 2; i += 1) expect((await check()).status).to.equal(200);
      expectError(await check(), 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
    } finally {
      await app.stop();
    }
  });
});
