/** GET /sessions/checkout: the session's checkout in camelCase, its payment methods and the buyer's saved cards. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import { newSession, setStored } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import { CARDS, cardConnector, openSession, publicHeaders, saveCard } from '../helpers/vault';

describe('GET /api/v1/sessions/checkout', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
    const connector = await cardConnector(tenant, 'provider_b', { config: { card_brands: ['visa', 'mastercard'] } });
    // The checkout offers what routing can charge: the connector is routed for every method.
    const profile = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
      key: tenant.merchant_secret_key,
      body: { name: 'All', is_active: true, payment_method: '*', default_merchant_connector_id: connector.id },
    });
    expect(profile.status, profile.text).to.equal(201);
  });
  const read = (sessionId: string | undefined, key = tenant.merchant_public_key) =>
    api.get('/sessions/checkout', { headers: publicHeaders(key, sessionId) });

  it('returns {checkout, paymentMethods, savedInstruments} exactly as specified, in camelCase', async () => {
    const { session: checkout } = await newSession(tenant);
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    const res = await read(session.sessionId);
    expect(res.status, res.text).to.equal(200);
    // summary and payment are additive (docs/api-decisions.md, "The hosted page and the SDK").
    expect(res.body).to.have.all.keys(['checkout', 'paymentMethods', 'savedInstruments', 'summary', 'payment']);
    expect(res.body.checkout).to.have.all.keys([
      'id',
      'merchantId',
      'mode',
      'offerId',
      'customerId',
      'customerEmail',
      'customerName',
      'selectedCurrency',
      'status',
      'externalSessionId',
      'expiresAt',
      'completedAt',
      'paymentInstrumentId',
      'successUrl',
      'cancelUrl',
      'createdAt',
      'updatedAt',
      'items',
    ]);
    expect(res.body.checkout).to.include({
      id: checkout.id,
      merchantId: tenant.merchant_id,
      offerId: checkout.offer_id,
      // The inline customer is matched by e-mail, which anyone can type: its id is not shown to the browser.
      customerId: null,
      customerEmail: checkout.customer_email,
      status: checkout.status,
    });
    const [item] = res.body.checkout.items;
    expect(item).to.have.all.keys([
      'id',
      'checkoutSessionId',
      'offerId',
      'currency',
      'amount',
      'firstChargeAmount',
      'quantity',
      'installments',
      'createdAt',
    ]);
    expect(item).to.include({
      id: checkout.items![0].id,
      checkoutSessionId: checkout.id,
      amount: checkout.items![0].amount,
    });
    // boleto is additive too (the hosted page's boleto tab).
    expect(res.body.paymentMethods).to.deep.equal({
      cards: true,
      pix: true,
      boleto: true,
      wallet: false,
      cardBrands: ['visa', 'mastercard'],
      installmentsSupported: true,
      installmentOptions: { credit_card: { min: 1, max: 12 }, debit_card: null, pix: null, boleto: null, wallet: null },
    });
    expect(res.body.savedInstruments).to.deep.equal([]);
  });

  it("lists the checkout customer's chargeable saved cards only (a customer the merchant named by id)", async () => {
    const { session: first } = await newSession(tenant);
    const { session: checkout } = await newSession(tenant, { customer_id: first.customer_id });
    const visa = await saveCard(tenant, checkout.customer_id!, CARDS.visa);
    const master = await saveCard(tenant, checkout.customer_id!, CARDS.mastercard);
    await stack().orm.em.fork().execute(`update payment_instruments set status = 'revoked' where id = ?`, [master.id]);
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    const res = await read(session.sessionId);
    expect(res.body.savedInstruments).to.deep.equal([
      { id: visa.id, instrumentType: 'card', brand: 'visa', last4: '4242', expMonth: 12, expYear: visa.exp_year },
    ]);
  });

  it('answers 404 when the browser session was opened without a checkout session', async () => {
    const session = await openSession(tenant);
    expectError(await read(session.sessionId), 404, 'not_found_error');
  });

  it("requires X-Session-Id (400), refuses another merchant's session (400) and an expired one (422)", async () => {
    expectFieldErrors(await read(undefined), ['X-Session-Id']);
    const { session: checkout } = await newSession(tenant);
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    const stranger = await createTenant();
    expectFieldErrors(await read(session.sessionId, stranger.merchant_public_key), ['X-Session-Id']);
    await stack()
      .orm.em.fork()
      .execute('update browser_sessions set expires_at = ? where id = ?', [
        new Date(Date.now() - 1000),
        session.sessionId,
      ]);
    expectError(await read(session.sessionId), 422, 'business_rule_error', 'BROWSER_SESSION_EXPIRED');
  });
});

describe('A checkout link is not a lasting read capability', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
    await cardConnector(tenant, 'provider_b', { config: { card_brands: ['visa', 'mastercard'] } });
  });

  it("a customer matched by e-mail (inline or identify) gets no saved cards shown: anyone can type another's e-mail", async () => {
    const { session: victim } = await newSession(tenant);
    await saveCard(tenant, victim.customer_id!, CARDS.visa);
    const email = await customerEmail(victim.customer_id!);
    const { session: mallory } = await newSession(tenant, { customer: customerInput({ email, name: 'Mallory' }) });
    expect(mallory.customer_id).to.equal(victim.customer_id);
    const session = await openSession(tenant, { checkoutSessionId: mallory.id });
    const res = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, session.sessionId),
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.savedInstruments).to.deep.equal([]);
  });

  it('an ended checkout shows no saved cards', async () => {
    const { session: first } = await newSession(tenant);
    const { session: checkout } = await newSession(tenant, { customer_id: first.customer_id });
    await saveCard(tenant, checkout.customer_id!, CARDS.visa);
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    await setStored(checkout.id, { status: 'abandoned' });
    const res = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, session.sessionId),
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.savedInstruments).to.deep.equal([]);
  });

  it('refuses a new browser session on a checkout that ended more than an hour ago (422 CHECKOUT_SESSION_CLOSED)', async () => {
    const { session: checkout } = await newSession(tenant);
    await setStored(checkout.id, { expires_at: new Date(Date.now() - 2 * 60 * 60 * 1000) });
    const res = await api.post('/sessions', {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { checkoutSessionId: checkout.id },
    });
    expectError(res, 422, 'business_rule_error', 'CHECKOUT_SESSION_CLOSED');
    // Within the hour after it ended, the hosted page can still open (to show what happened).
    await setStored(checkout.id, { expires_at: new Date(Date.now() - 60_000) });
    const recent = await api.post('/sessions', {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { checkoutSessionId: checkout.id },
    });
    expect(recent.status, recent.text).to.equal(201);
  });
});

async function customerEmail(customerId: string): Promise<string> {
  const [row] = await stack()
    .orm.em.fork()
    .execute<{ email: string }[]>('select email from customers where id = ?', [customerId]);
  return row.email;
}
