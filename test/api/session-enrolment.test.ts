/**
 * POST /sessions/:sessionId/payment-instruments: zero-amount verification against the sandbox PSP (routed by
 * the merchant's routing profile, or on the named connector), then the card is saved.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import { newSession } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import {
  CARDS,
  cardConnector,
  createCustomer,
  instrumentsPath,
  mintToken,
  NEXT_YEAR,
  openSession,
  publicHeaders,
  type SessionData,
  enrolmentToken,
  withEnrolmentToken,
} from '../helpers/vault';

const RESULT_KEYS = ['verified', 'paymentInstrumentId', 'status', 'brand', 'last4', 'expMonth', 'expYear', 'reason'];

async function activeProfile(tenant: Tenant, connectorId: string): Promise<void> {
  const res = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
    key: tenant.merchant_secret_key,
    body: { name: 'Cards', is_active: true, payment_method: '*', default_merchant_connector_id: connectorId },
  });
  expect(res.status, res.text).to.equal(201);
}

describe('POST /api/v1/sessions/:sessionId/payment-instruments', () => {
  let tenant: Tenant;
  let connector: any;
  let customerId: string;
  const enrol = (session: SessionData, body: Record<string, unknown>, key = tenant.merchant_public_key) =>
    api.post(`/sessions/${session.sessionId}/payment-instruments`, { headers: publicHeaders(key), body });
  /** Outside a checkout, with the enrolment token the merchant's server mints for the customer. */
  const enrolFor = async (session: SessionData, body: Record<string, unknown> & { customerId: string }) =>
    enrol(session, await withEnrolmentToken(tenant, body));

  before(async () => {
    tenant = await createTenant();
    connector = await cardConnector(tenant, 'provider_a');
    await activeProfile(tenant, connector.id);
    customerId = await createCustomer(tenant);
  });

  it('verifies an approved card through the routing profile and saves it: 201 {verified: true, paymentInstrumentId, …}', async () => {
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session, CARDS.visa);
    const res = await enrolFor(session, { tokenId: token.tokenId, customerId, currency: 'USD' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.have.all.keys(RESULT_KEYS);
    expect(res.body).to.include({
      verified: true,
      status: 'active',
      brand: 'visa',
      last4: '4242',
      expMonth: 12,
      expYear: NEXT_YEAR,
      reason: null,
    });
    const saved = await api.get(`${instrumentsPath(tenant.merchant_id)}/${res.body.paymentInstrumentId}`, {
      key: tenant.merchant_secret_key,
    });
    expect(saved.body.data).to.include({ customer_id: customerId, status: 'active', last4: '4242' });
    const [row] = await stack()
      .orm.em.fork()
      .execute('select verified_connector_id from payment_instruments where id = ?', [res.body.paymentInstrumentId]);
    expect(row.verified_connector_id).to.equal(connector.id);
  });

  it('reports a declined card with 201 {verified: false, status: declined, reason} and saves nothing; the token is used', async () => {
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session, CARDS.stolen);
    const res = await enrolFor(session, { tokenId: token.tokenId, customerId, currency: 'USD' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({
      verified: false,
      paymentInstrumentId: null,
      status: 'declined',
      reason: 'hard_decline',
      last4: '9979',
    });
    const list = await api.get(instrumentsPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      query: { last4: '9979' },
    });
    expect(list.body.data).to.deep.equal([]);
    expectError(
      await enrolFor(session, { tokenId: token.tokenId, customerId, currency: 'USD' }),
      409,
      'conflict_error',
      'TOKEN_ALREADY_USED',
    );
  });

  it('records each verification as an order of type card_setup: authorized when verified, failed when declined', async () => {
    const customer = await createCustomer(tenant);
    const session = await openSession(tenant);
    const approved = await mintToken(tenant, session, CARDS.visa);
    expect(
      (await enrolFor(session, { tokenId: approved.tokenId, customerId: customer, currency: 'USD' })).status,
    ).to.equal(201);
    const declined = await mintToken(tenant, session, CARDS.stolen);
    expect(
      (await enrolFor(session, { tokenId: declined.tokenId, customerId: customer, currency: 'USD' })).status,
    ).to.equal(201);
    const orders = await stack()
      .orm.em.fork()
      .execute<Array<{ order_type: string; status: string; total_amount: string; recurrence: string }>>(
        `select order_type, status, total_amount, recurrence from orders where customer_id = ? order by created_at, id`,
        [customer],
      );
    expect(orders.map((o) => [o.order_type, o.status, Number(o.total_amount), o.recurrence]).sort()).to.deep.equal([
      ['card_setup', 'authorized', 0, 'none'],
      ['card_setup', 'failed', 0, 'none'],
    ]);
  });

  it('verifies on the named connector when connectorId is given', async () => {
    const other = await createTenant();
    const named = await cardConnector(other, 'provider_a');
    // A browser may only name a connector the merchant's card routing uses (test/api/card-testing.test.ts).
    await activeProfile(other, named.id);
    const otherCustomer = await createCustomer(other);
    const session = await openSession(other);
    const token = await mintToken(other, session, CARDS.mastercard);
    const res = await api.post(`/sessions/${session.sessionId}/payment-instruments`, {
      headers: publicHeaders(other.merchant_public_key),
      body: {
        tokenId: token.tokenId,
        currency: 'USD',
        connectorId: named.id,
        enrolmentToken: await enrolmentToken(other, otherCustomer),
      },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.verified).to.equal(true);
  });

  it('returns the saved instrument for a card already saved for the customer, without a new one', async () => {
    const session = await openSession(tenant);
    const first = await enrolFor(session, {
      tokenId: (await mintToken(tenant, session, CARDS.amex)).tokenId,
      customerId,
      currency: 'USD',
    });
    const again = await enrolFor(session, {
      tokenId: (await mintToken(tenant, session, CARDS.amex)).tokenId,
      customerId,
      currency: 'USD',
    });
    expect(again.status, again.text).to.equal(201);
    expect(again.body).to.include({ verified: true, paymentInstrumentId: first.body.paymentInstrumentId });
  });

  it("falls back to the checkout session's customer and currency", async () => {
    const { session: checkout } = await newSession(tenant, { selected_currency: 'USD' });
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    const token = await mintToken(tenant, session, CARDS.visa);
    const res = await enrol(session, { tokenId: token.tokenId });
    expect(res.status, res.text).to.equal(201);
    const saved = await api.get(`${instrumentsPath(tenant.merchant_id)}/${res.body.paymentInstrumentId}`, {
      key: tenant.merchant_secret_key,
    });
    expect(saved.body.data.customer_id).to.equal(checkout.customer_id);
  });

  it("binds enrolment in a checkout's browser session to that checkout's own customer (another customerId → 400)", async () => {
    const { session: checkout } = await newSession(tenant, { selected_currency: 'USD' });
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    const token = await mintToken(tenant, session, CARDS.visa);
    const other = await createCustomer(tenant);
    expectFieldErrors(await enrol(session, { tokenId: token.tokenId, customerId: other }), ['customerId']);
    // Naming the checkout's own customer is fine; the refused request did not use the token up.
    const res = await enrol(session, { tokenId: token.tokenId, customerId: checkout.customer_id });
    expect(res.status, res.text).to.equal(201);
    const saved = await api.get(`${instrumentsPath(tenant.merchant_id)}/${res.body.paymentInstrumentId}`, {
      key: tenant.merchant_secret_key,
    });
    expect(saved.body.data.customer_id).to.equal(checkout.customer_id);
  });

  it('requires an enrolment token and a currency when there is no checkout to fall back to (400)', async () => {
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session, CARDS.visa);
    expectFieldErrors(await enrol(session, { tokenId: token.tokenId, customerId, currency: 'USD' }), [
      'enrolmentToken',
    ]);
    expectFieldErrors(await enrolFor(session, { tokenId: token.tokenId, customerId }), ['currency']);
  });

  it("refuses a one_time token, another session's token and another merchant's customer or connector with 400", async () => {
    const session = await openSession(tenant);
    const oneTime = await mintToken(tenant, session, CARDS.visa, { purpose: 'one_time' });
    expectFieldErrors(await enrolFor(session, { tokenId: oneTime.tokenId, customerId, currency: 'USD' }), ['tokenId']);
    const elsewhere = await mintToken(tenant, await openSession(tenant), CARDS.visa);
    expectFieldErrors(await enrolFor(session, { tokenId: elsewhere.tokenId, customerId, currency: 'USD' }), [
      'tokenId',
    ]);
    const stranger = await createTenant();
    const foreignConnector = await cardConnector(stranger, 'provider_a');
    const token = await mintToken(tenant, session, CARDS.visa);
    // The enrolment token names the customer: a customerId from the browser may only repeat it.
    expectFieldErrors(
      await enrol(session, {
        tokenId: token.tokenId,
        customerId: await createCustomer(stranger),
        currency: 'USD',
        enrolmentToken: await enrolmentToken(tenant, customerId),
      }),
      ['customerId'],
    );
    expectFieldErrors(
      await enrolFor(session, {
        tokenId: token.tokenId,
        customerId,
        currency: 'USD',
        connectorId: foreignConnector.id,
      }),
      ['connectorId'],
    );
  });

  it('answers 422 NO_ACTIVE_ROUTING_PROFILE when nothing routes cards and no connector is named', async () => {
    const other = await createTenant();
    await cardConnector(other, 'provider_a');
    const session = await openSession(other);
    const token = await mintToken(other, session, CARDS.visa);
    const res = await api.post(`/sessions/${session.sessionId}/payment-instruments`, {
      headers: publicHeaders(other.merchant_public_key),
      body: {
        tokenId: token.tokenId,
        currency: 'USD',
        enrolmentToken: await enrolmentToken(other, await createCustomer(other)),
      },
    });
    expectError(res, 422, 'business_rule_error', 'NO_ACTIVE_ROUTING_PROFILE');
  });

  it("answers 404 for another merchant's browser session and 422 for an expired one", async () => {
    const session = await openSession(tenant);
    const stranger = await createTenant();
    expectError(await enrol(session, { tokenId: 'tok_x' }, stranger.merchant_public_key), 404, 'not_found_error');
    await stack()
      .orm.em.fork()
      .execute('update browser_sessions set expires_at = ? where id = ?', [
        new Date(Date.now() - 1000),
        session.sessionId,
      ]);
    expectError(await enrol(session, { tokenId: 'tok_x' }), 422, 'business_rule_error', 'BROWSER_SESSION_EXPIRED');
  });
});
