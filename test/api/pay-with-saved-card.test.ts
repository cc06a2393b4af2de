/**
 * Pay a checkout with a saved card (docs/api-decisions.md, "Paying a checkout with a saved card"): POST /transactions
 * takes checkout_session_id with a payment_instrument_id of that checkout's customer, and the hosted page's confirm
 * takes paymentInstrumentId; an instrument of another customer, or a checkout without a customer named by id, is a
 * 400 that changes nothing.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { api } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { createSession } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { rows } from '../helpers/db';
import { cascade, charge } from '../helpers/transactions';
import { CARDS, openSession, publicHeaders, saveCard } from '../helpers/vault';

async function newCustomer(tenant: Tenant): Promise<string> {
  const res = await api.post('/customers', {
    key: tenant.merchant_secret_key,
    headers: { 'idempotency-key': randomUUID() },
    body: customerInput(),
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.data.id;
}

const savedCardCharge = (checkoutId: string, instrumentId: string) => ({
  payment_method: 'credit_card',
  charge_type: 'payment',
  country: 'US',
  checkout_session_id: checkoutId,
  payment_instrument_id: instrumentId,
});

describe('Pay a checkout with a saved card', function () {
  this.timeout(90_000);
  let tenant: Tenant;
  let customerId: string;
  let instrumentId: string;
  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    customerId = await newCustomer(tenant);
    instrumentId = (await saveCard(tenant, customerId, CARDS.visa)).id;
  });

  it("POST /transactions pays a monthly checkout with its customer's saved card: authorized, the subscription charges that card", async () => {
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'monthly' });
    const checkout = await createSession(tenant, {
      offer_id: offer.id,
      customer_id: customerId,
      selected_currency: 'USD',
    });
    const res = await charge(tenant, savedCardCharge(checkout.id, instrumentId));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data).to.include({
      status: 'authorized',
      customer_id: customerId,
      payment_instrument_id: instrumentId,
      amount: 999,
    });
    const [tx] = await rows('select checkout_session_id, card_token_id from transactions where id = ?', [
      res.body.data.id,
    ]);
    expect(tx).to.deep.equal({ checkout_session_id: checkout.id, card_token_id: null });
    const [session] = await rows('select status from checkout_sessions where id = ?', [checkout.id]);
    expect(session.status).to.equal('completed');
    const [subscription] = await rows('select payment_instrument_id from subscriptions where id = ?', [
      res.body.data.subscription_id,
    ]);
    expect(subscription.payment_instrument_id).to.equal(instrumentId);
  });

  it("another customer's saved card is 400 on payment_instrument_id and nothing is charged", async () => {
    const other = await newCustomer(tenant);
    const theirs = (await saveCard(tenant, other, CARDS.mastercard)).id;
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, {
      offer_id: offer.id,
      customer_id: customerId,
      selected_currency: 'USD',
    });
    const error = expectError(await charge(tenant, savedCardCharge(checkout.id, theirs)), 400);
    expect(error.details).to.have.property('payment_instrument_id');
    expect(error.message + JSON.stringify(error.details)).to.not.include('5555');
    expect(await rows('select id from transactions where checkout_session_id = ?', [checkout.id])).to.have.length(0);
  });

  it('a guest checkout (no customer named by id) cannot be paid with a saved card: 400, nothing charged', async () => {
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, { offer_id: offer.id, selected_currency: 'USD' });
    expectError(await charge(tenant, savedCardCharge(checkout.id, instrumentId)), 400);
    expect(await rows('select id from transactions where checkout_session_id = ?', [checkout.id])).to.have.length(0);
  });

  it('a card source beside the saved card is still refused (exactly one card source besides the checkout)', async () => {
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, {
      offer_id: offer.id,
      customer_id: customerId,
      selected_currency: 'USD',
    });
    const body = { ...savedCardCharge(checkout.id, instrumentId), card_ciphertext_id: 'ctok_whatever' };
    expectError(await charge(tenant, body), 400);
  });

  it('the hosted page pays with paymentInstrumentId on a checkout for a customer id; an e-mail-bound checkout is refused', async () => {
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, {
      offer_id: offer.id,
      customer_id: customerId,
      selected_currency: 'USD',
    });
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    const paid = await api.post(`/sessions/${session.sessionId}/checkout/confirm`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { paymentInstrumentId: instrumentId },
    });
    expect(paid.status, paid.text).to.equal(200);
    expect(paid.body).to.include({ outcome: 'succeeded', amount: 999 });
    const [tx] = await rows('select payment_instrument_id, card_token_id from transactions where id = ?', [
      paid.body.transactionId,
    ]);
    expect(tx).to.deep.equal({ payment_instrument_id: instrumentId, card_token_id: null });

    // The same customer, matched by e-mail: anyone could type that e-mail, so no saved card pays this checkout.
    const [customer] = await rows('select email from customers where id = ?', [customerId]);
    const guest = await createSession(tenant, {
      offer_id: offer.id,
      customer: customerInput({ email: customer.email }),
      selected_currency: 'USD',
    });
    const guestSession = await openSession(tenant, { checkoutSessionId: guest.id });
    const refused = await api.post(`/sessions/${guestSession.sessionId}/checkout/confirm`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { paymentInstrumentId: instrumentId },
    });
    expectError(refused, 400);
    expect(await rows('select id from transactions where checkout_session_id = ?', [guest.id])).to.have.length(0);
  });
});
