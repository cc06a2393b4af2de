/** GET /transactions, /transactions/:id, /transactions/:id/attempts, /orders, /orders/:id; the customer-history delete guard. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { CARDS, createCustomer, saveCard } from '../helpers/vault';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

describe('GET /api/v1/transactions and /transactions/:id', () => {
  let tenant: Tenant;
  let customerId: string;
  let authorized: any;
  let failed: any;
  let other: any;
  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    customerId = await createCustomer(tenant);
    authorized = (await charge(tenant, cardCharge(await cardToken(tenant), { customer_id: customerId }))).body.data;
    failed = (await charge(tenant, cardCharge(await cardToken(tenant, CARDS.stolen), { external_order_id: 'po-77' })))
      .body.data;
    other = (await charge(tenant, cardCharge(await cardToken(tenant), { currency: 'BRL' }))).body.data;
  });
  const list = (query: Record<string, any> = {}, key = tenant.merchant_secret_key) =>
    api.get('/transactions', { key, query });

  it('lists newest first with nested pagination and the timeline', async () => {
    const res = await list();
    const data = expectWrapped(res, 200, { list: true });
    expect(data.map((t: any) => t.id)).to.deep.equal([other.id, failed.id, authorized.id]);
    expect(res.body.meta.pagination).to.include({ total: 3, page: 1 });
    expect(data[2].timeline).to.have.length(1);
  });

  it('filters by status (repeated or comma-separated), currency, order_id, customer_reference and dates', async () => {
    expect((await list({ status: 'failed' })).body.data.map((t: any) => t.id)).to.deep.equal([failed.id]);
    expect((await list({ status: 'failed,authorized' })).body.data).to.have.length(3);
    expect((await list({ currency: 'BRL' })).body.data.map((t: any) => t.id)).to.deep.equal([other.id]);
    expect((await list({ order_id: authorized.order_id })).body.data.map((t: any) => t.id)).to.deep.equal([
      authorized.id,
    ]);
    expect((await list({ customer_reference: customerId })).body.data.map((t: any) => t.id)).to.deep.equal([
      authorized.id,
    ]);
    expect((await list({ customer_reference: 'po-77' })).body.data.map((t: any) => t.id)).to.deep.equal([failed.id]);
    expect((await list({ payment_method: 'pix' })).body.data).to.have.length(0);
    expect((await list({ date_from: new Date(Date.now() + 60_000).toISOString() })).body.data).to.have.length(0);
    expect((await list({ date_to: new Date(Date.now() + 60_000).toISOString() })).body.data).to.have.length(3);
  });

  it('rejects bad filters with 400', async () => {
    expectFieldErrors(await list({ status: 'paid' }), ['status']);
    expectFieldErrors(await list({ limit: 101 }), ['limit']);
    expectFieldErrors(await list({ date_from: 'yesterday' }), ['date_from']);
  });

  it('gets one transaction by id with its timeline; another merchant gets 404', async () => {
    const res = await api.get(`/transactions/${authorized.id}`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(res, 200)).to.deep.equal(authorized);
    const stranger = await createTenant();
    expectError(
      await api.get(`/transactions/${authorized.id}`, { key: stranger.merchant_secret_key }),
      404,
      'not_found_error',
    );
    expectError(await api.get('/transactions/tx_missing', { key: tenant.merchant_secret_key }), 404, 'not_found_error');
  });

  it('takes an organization key with merchant_id; needs transactions:read', async () => {
    const res = await list({ merchant_id: tenant.merchant_id }, tenant.organization_secret_key);
    expect(expectWrapped(res, 200, { list: true })).to.have.length(3);
    const noScope = await keyWithScopes(tenant, ['orders:read']);
    expectError(await list({}, noScope), 403, 'authorization_error');
  });

  it('lists the attempts with outcome, provider reference and routing node', async () => {
    const res = await api.get(`/transactions/${failed.id}/attempts`, { key: tenant.merchant_secret_key });
    const [attempt] = expectWrapped(res, 200);
    expect(attempt).to.include({
      attempt_number: 1,
      outcome: 'hard_decline',
      status: 'failed',
      three_ds_status: 'not_requested',
    });
    expect(attempt.error_code).to.be.a('string');
  });
});

describe('GET /api/v1/orders and /orders/:id', () => {
  let tenant: Tenant;
  let paid: any;
  let declined: any;
  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    paid = (await charge(tenant, cardCharge(await cardToken(tenant), { external_order_id: 'o-1' }))).body.data;
    declined = (await charge(tenant, cardCharge(await cardToken(tenant, CARDS.stolen)))).body.data;
  });

  it('lists order headers newest first, without items or status_history, with filters', async () => {
    const res = await api.get('/orders', { key: tenant.merchant_secret_key });
    const data = expectWrapped(res, 200, { list: true });
    expect(data.map((o: any) => o.id)).to.deep.equal([declined.order_id, paid.order_id]);
    expect(data[0]).to.not.have.property('items');
    expect(data[0]).to.not.have.property('status_history');
    const byStatus = await api.get('/orders', { key: tenant.merchant_secret_key, query: { status: 'failed' } });
    expect(byStatus.body.data.map((o: any) => o.id)).to.deep.equal([declined.order_id]);
    const byRef = await api.get('/orders', {
      key: tenant.merchant_secret_key,
      query: { external_order_id: 'o-1', order_type: 'api' },
    });
    expect(byRef.body.data.map((o: any) => o.id)).to.deep.equal([paid.order_id]);
    expectFieldErrors(await api.get('/orders', { key: tenant.merchant_secret_key, query: { order_type: 'gift' } }), [
      'order_type',
    ]);
  });

  it("answers 404 ORDER_NOT_FOUND for an unknown order or another merchant's", async () => {
    const stranger = await createTenant();
    expectError(
      await api.get(`/orders/${paid.order_id}`, { key: stranger.merchant_secret_key }),
      404,
      'not_found_error',
      'ORDER_NOT_FOUND',
    );
    expectError(
      await api.get('/orders/ord_nothing', { key: tenant.merchant_secret_key }),
      404,
      'not_found_error',
      'ORDER_NOT_FOUND',
    );
  });

  it('a failed charge leaves a failed order', async () => {
    const order = (await api.get(`/orders/${declined.order_id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(order.status).to.equal('failed');
  });
});

describe('DELETE /api/v1/customers/:id with payment history', () => {
  it('answers 409 RESOURCE_IN_USE when the customer has a transaction or a saved card, and keeps the customer', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const charged = await createCustomer(tenant);
    await charge(tenant, cardCharge(await cardToken(tenant), { customer_id: charged }));
    expectError(
      await api.delete(`/customers/${charged}`, { key: tenant.merchant_secret_key }),
      409,
      'conflict_error',
      'RESOURCE_IN_USE',
    );
    const saver = await createCustomer(tenant);
    await saveCard(tenant, saver);
    expectError(
      await api.delete(`/customers/${saver}`, { key: tenant.merchant_secret_key }),
      409,
      'conflict_error',
      'RESOURCE_IN_USE',
    );
    expect((await api.get(`/customers/${saver}`, { key: tenant.merchant_secret_key })).status).to.equal(200);
  });
});
