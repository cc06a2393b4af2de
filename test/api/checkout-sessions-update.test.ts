import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, customerInput, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import {
  createSession,
  HOUR,
  inFuture,
  newSession,
  sellableOffer,
  setStored,
  type SessionData,
} from '../helpers/checkout';
import { stack } from '../helpers/stack';

describe('PATCH /api/v1/checkout-sessions/:id', () => {
  let tenant: Tenant;
  let session: SessionData;
  let offerId: string;
  beforeEach(async () => {
    tenant = await createTenant();
    const created = await newSession(tenant, { expires_at: inFuture(HOUR) });
    session = created.session;
    offerId = created.offer.id;
  });

  const patch = (
    body: Record<string, unknown>,
    id = session.id,
    key = tenant.merchant_secret_key,
    query?: Record<string, string>,
  ) => api.patch(`/checkout-sessions/${id}`, { key, body, query });
  const reread = async () =>
    expectWrapped(await api.get(`/checkout-sessions/${session.id}`, { key: tenant.merchant_secret_key }), 200);

  it('returns 200 with the session (items included) after changing external_session_id and pushing expires_at out', async () => {
    const later = inFuture(3 * HOUR);
    const data = expectWrapped(await patch({ external_session_id: 'cart-7', expires_at: later }), 200);
    expect(data).to.include({ external_session_id: 'cart-7', expires_at: later, status: 'customer_identified' });
    expect(data.items).to.have.length(1);
    expect(Date.parse(data.updated_at)).to.be.at.least(Date.parse(session.updated_at));
  });

  it('leaves fields that are not sent unchanged (an empty body changes nothing)', async () => {
    const data = expectWrapped(await patch({}), 200);
    expect({ ...data, updated_at: session.updated_at }).to.deep.equal(session);
  });

  it('clears external_session_id with null, and answers 409 when another session uses it', async () => {
    await createSession(tenant, { offer_id: offerId, external_session_id: 'taken' });
    expectError(await patch({ external_session_id: 'taken' }), 409, 'conflict_error');
    expect(expectWrapped(await patch({ external_session_id: 'mine' }), 200).external_session_id).to.equal('mine');
    expect(expectWrapped(await patch({ external_session_id: null }), 200).external_session_id).to.equal(null);
  });

  it('rejects an expires_at in the past with 400 naming expires_at', async () => {
    expectFieldErrors(await patch({ expires_at: inFuture(-60_000) }), ['expires_at']);
    expect((await reread()).expires_at).to.equal(session.expires_at);
  });

  it('rejects offer_id and items as immutable with 400 naming them', async () => {
    expectFieldErrors(await patch({ offer_id: offerId }), ['offer_id']);
    expectFieldErrors(await patch({ items: [{ offer_id: offerId }] }), ['items']);
  });

  it('sets the customer by customer_id, copying its email and name', async () => {
    const customer = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ name: 'New Buyer' }),
    });
    const data = expectWrapped(await patch({ customer_id: customer.body.data.id }), 200);
    expect(data).to.include({
      customer_id: customer.body.data.id,
      customer_email: customer.body.data.email,
      customer_name: 'New Buyer',
    });
  });

  it('moves an initiated session to customer_identified when an inline customer is set', async () => {
    await setStored(session.id, { status: 'initiated', customer_id: null });
    const data = expectWrapped(await patch({ customer: customerInput({ email: 'inline@example.com' }) }), 200);
    expect(data).to.include({ status: 'customer_identified', customer_email: 'inline@example.com' });
    expect(data.customer_id).to.match(/^cust_/);
  });

  it("rejects both customer_id and customer, and another merchant's customer_id, with 400", async () => {
    const customer = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    expectFieldErrors(await patch({ customer_id: customer.body.data.id, customer: customerInput() }), [
      'customer_id',
      'customer',
    ]);
    const other = await createTenant();
    const foreign = await api.post('/customers', { key: other.merchant_secret_key, body: customerInput() });
    expectFieldErrors(await patch({ customer_id: foreign.body.data.id }), ['customer_id']);
  });

  it('re-prices every item from the current offer prices when selected_currency changes', async () => {
    await stack()
      .orm.em.fork()
      .execute(
        `update offer_prices set amount = 1299, first_charge_amount = 99 where offer_id = ? and currency = 'USD'`,
        [offerId],
      );
    const data = expectWrapped(await patch({ selected_currency: 'USD' }), 200);
    expect(data.selected_currency).to.equal('USD');
    expect(data.items[0]).to.include({ currency: 'USD', amount: 1299, first_charge_amount: 99, quantity: 1 });
    expect(data.items[0].id).to.equal(session.items![0].id);
  });

  it('keeps the snapshot when selected_currency is sent unchanged', async () => {
    await stack()
      .orm.em.fork()
      .execute(`update offer_prices set amount = 1 where offer_id = ? and currency = 'BRL'`, [offerId]);
    expect(expectWrapped(await patch({ selected_currency: 'BRL' }), 200).items[0].amount).to.equal(4990);
  });

  it('rejects a currency the offer, or any item offer, has no price in with 400, changing nothing', async () => {
    expectFieldErrors(await patch({ selected_currency: 'EUR' }), ['selected_currency']);
    const brlOnly = await sellableOffer(tenant, { prices: [{ currency: 'BRL', amount: 100, isDefault: true }] });
    await api.post(`/checkout-sessions/${session.id}/items`, {
      key: tenant.merchant_secret_key,
      body: { offer_id: brlOnly.offer.id },
    });
    expectFieldErrors(await patch({ selected_currency: 'USD', external_session_id: 'x' }), ['selected_currency']);
    const after = await reread();
    expect(after.selected_currency).to.equal('BRL');
    expect(after.external_session_id).to.equal(null);
    expect(after.items.map((item: { currency: string }) => item.currency)).to.deep.equal(['BRL', 'BRL']);
  });

  for (const status of ['abandoned', 'completed', 'expired', 'payment_pending']) {
    it(`rejects a session in status ${status} with 422 INVALID_STATE_TRANSITION`, async () => {
      await setStored(session.id, { status });
      expectError(await patch({ external_session_id: 'late' }), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
    });
  }

  it('rejects a session whose expires_at has passed with 422 (pushing it out cannot revive it)', async () => {
    await setStored(session.id, { expires_at: new Date(Date.now() - 1000) });
    expectError(await patch({ expires_at: inFuture(HOUR) }), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
  });

  it('rejects bad input (unknown fields, malformed currency or timestamp) with 400', async () => {
    expectFieldErrors(await patch({ status: 'completed' }), ['status']);
    expectFieldErrors(await patch({ selected_currency: 'brl' }), ['selected_currency']);
    expectFieldErrors(await patch({ expires_at: 12 }), ['expires_at']);
  });

  it("returns 404 for another merchant's session and leaves it unchanged", async () => {
    const other = await createTenant();
    const foreign = await newSession(other);
    expectError(await patch({ external_session_id: 'hijack' }, foreign.session.id), 404, 'not_found_error');
    const res = await api.get(`/checkout-sessions/${foreign.session.id}`, { key: other.merchant_secret_key });
    expect(res.body.data.external_session_id).to.equal(null);
  });

  it('accepts an organization key with merchant_id in the query; a sibling merchant gets 404', async () => {
    const org = tenant.organization_secret_key;
    expect(
      expectWrapped(
        await patch({ external_session_id: 'org' }, session.id, org, { merchant_id: tenant.merchant_id }),
        200,
      ).external_session_id,
    ).to.equal('org');
    const sibling = await addMerchant(tenant);
    expectError(await patch({ external_session_id: 'x' }, session.id, org, { merchant_id: sibling.merchantId }), 404);
  });

  it('refuses a key without checkout:write with 403', async () => {
    expectError(
      await patch({}, session.id, await keyWithScopes(tenant, ['checkout:read'])),
      403,
      'authorization_error',
    );
  });
});
