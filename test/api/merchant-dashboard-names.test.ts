/**
 * The merchant Dashboard's payment routes answer names next to ids
 * (customer name and e-mail, connector name on attempts) and search by the customer's e-mail; an order's status
 * history names who asked for each capture, void and refund — the Dashboard user or the API key — instead of "api".
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput, uniqueEmail, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { expectError } from '../helpers/envelope';
import { subscribed } from '../helpers/subscriptions';

async function merchantSession(tenant: Tenant): Promise<{ headers: Record<string, string>; email: string }> {
  const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
  const { access_token: token } = await signIn('merchant', user);
  return { headers: bearer(token as string, { 'x-merchant-id': tenant.merchant_id }), email: user.email };
}

async function customer(tenant: Tenant, name: string): Promise<{ id: string; email: string }> {
  const email = uniqueEmail(name.split(' ')[0].toLowerCase());
  const res = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput({ email, name }) });
  expect(res.status, res.text).to.equal(201);
  return { id: res.body.data.id, email };
}

describe('Merchant Dashboard: names instead of ids, search by e-mail, who did what in order history', function () {
  this.timeout(90_000);
  let tenant: Tenant;
  let headers: Record<string, string>;
  let userEmail: string;
  let beatriz: { id: string; email: string };
  let carlos: { id: string; email: string };
  let paid: any;
  let other: any;

  before(async () => {
    tenant = await createTenant();
    ({ headers, email: userEmail } = await merchantSession(tenant));
    await cascade(tenant, ['provider_a']);
    beatriz = await customer(tenant, 'Beatriz Souza');
    carlos = await customer(tenant, 'Carlos Lima');
    const first = await charge(tenant, cardCharge(await cardToken(tenant), { amount: 5000, customer_id: beatriz.id }));
    expect(first.status, first.text).to.equal(201);
    paid = first.body.data;
    const second = await charge(tenant, cardCharge(await cardToken(tenant), { customer_id: carlos.id }));
    other = second.body.data;
  });

  it("answers the customer's name and e-mail on payments and orders, and the connector's name on attempts", async () => {
    const list = await api.get('/merchant/transactions', { headers });
    expect(list.status, list.text).to.equal(200);
    const row = list.body.data.find((tx: any) => tx.id === paid.id);
    expect(row).to.include({ customer_id: beatriz.id, customer_name: 'Beatriz Souza', customer_email: beatriz.email });

    const one = await api.get(`/merchant/transactions/${paid.id}`, { headers });
    expect(one.body).to.include({ customer_name: 'Beatriz Souza', customer_email: beatriz.email });
    const attempts = await api.get(`/merchant/transactions/${paid.id}/attempts`, { headers });
    expect(attempts.status, attempts.text).to.equal(200);
    expect(attempts.body[0]).to.include({ connector_name: 'provider_a #1' });

    const orders = await api.get('/merchant/orders', { headers });
    expect(orders.body.data.find((o: any) => o.id === paid.order_id)).to.include({ customer_name: 'Beatriz Souza' });
    const order = await api.get(`/merchant/orders/${paid.order_id}`, { headers });
    expect(order.body).to.include({ customer_name: 'Beatriz Souza', customer_email: beatriz.email });

    // The API-key routes keep their shape: names are the Dashboard's.
    const byKey = await api.get(`/transactions/${paid.id}`, { key: tenant.merchant_secret_key });
    expect(byKey.body.data).to.not.have.property('customer_name');
  });

  it("finds payments, orders and subscriptions by the customer's e-mail (any case); an unknown e-mail finds nothing", async () => {
    const shouted = beatriz.email.toUpperCase();
    const txs = await api.get('/merchant/transactions', { headers, query: { customer_email: shouted } });
    expect(txs.status, txs.text).to.equal(200);
    expect(txs.body.data.map((tx: any) => tx.id)).to.deep.equal([paid.id]);
    const orders = await api.get('/merchant/orders', { headers, query: { customer_email: carlos.email } });
    expect(orders.body.data.map((o: any) => o.id)).to.deep.equal([other.order_id]);

    const nobody = await api.get('/merchant/transactions', {
      headers,
      query: { customer_email: 'nobody@example.com' },
    });
    expect(nobody.status, nobody.text).to.equal(200);
    expect(nobody.body.data).to.deep.equal([]);
    expect(nobody.body.meta).to.include({ total: 0 });

    const both = await api.get('/merchant/orders', {
      headers,
      query: { customer_email: carlos.email, customer_id: carlos.id },
    });
    expectError(both, 400);

    const sub = await subscribed(new Date());
    const owner = await merchantSession(sub.tenant);
    const [{ email }] = await rows('select email from customers where id = ?', [sub.customerId]);
    const subs = await api.get('/merchant/subscriptions', { headers: owner.headers, query: { customer_email: email } });
    expect(subs.status, subs.text).to.equal(200);
    expect(subs.body.data.map((s: any) => s.id)).to.deep.equal([sub.state.subscriptionId]);
    const none = await api.get('/merchant/subscriptions', {
      headers: owner.headers,
      query: { customer_email: 'nobody@example.com' },
    });
    expect(none.body.data).to.deep.equal([]);
  });

  it("names who asked in the order's history: the Dashboard user's refund and void, the API key's capture", async () => {
    const refund = await api.post(`/merchant/transactions/${paid.id}/refunds`, { headers, body: { amount: 500 } });
    expect(refund.status, refund.text).to.equal(201);
    const order = await api.get(`/orders/${paid.order_id}`, { key: tenant.merchant_secret_key });
    expect(order.status, order.text).to.equal(200);
    const history = order.body.data.status_history as any[];
    // The charge itself: nobody asked for a capture, void or refund.
    expect(history[0].actor).to.equal(null);
    const byUser = history.filter((entry) => entry.actor);
    expect(byUser.map((entry) => entry.to_status)).to.include('partially_refunded');
    for (const entry of byUser) expect(entry.actor).to.include({ type: 'merchant_user', email: userEmail });

    const held = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false, amount: 2500 }));
    const captured = await api.post(`/transactions/${held.body.data.id}/capture`, {
      key: tenant.merchant_secret_key,
      body: {},
    });
    expect(captured.status, captured.text).to.equal(200);
    const heldOrder = await api.get(`/merchant/orders/${held.body.data.order_id}`, { headers });
    const capture = (heldOrder.body.status_history as any[]).filter((entry) => entry.actor);
    expect(capture).to.not.be.empty;
    for (const entry of capture) expect(entry.actor).to.include({ type: 'api_key', email: null });

    const hold = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false, amount: 1200 }));
    const voided = await api.post(`/merchant/transactions/${hold.body.data.id}/void`, { headers, body: {} });
    expect(voided.status, voided.text).to.equal(200);
    const voidOrder = await api.get(`/merchant/orders/${hold.body.data.order_id}`, { headers });
    const canceled = (voidOrder.body.status_history as any[]).find((entry) => entry.to_status === 'canceled');
    expect(canceled.actor).to.include({ type: 'merchant_user', email: userEmail });
  });

  it('records nobody for a refused operation (a failed request changes nothing)', async () => {
    const before = await rows('select operation_id from payment_operation_actors where transaction_id = ?', [other.id]);
    const refused = await api.post(`/merchant/transactions/${other.id}/refunds`, {
      headers,
      body: { amount: 999_999 },
    });
    expectError(refused, 422);
    const after = await rows('select operation_id from payment_operation_actors where transaction_id = ?', [other.id]);
    expect(after).to.deep.equal(before);
  });
});
