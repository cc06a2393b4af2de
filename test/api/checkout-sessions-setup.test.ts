/**
 * A checkout session in setup mode: a hosted "save a card" page for a customer. It sells nothing (no offer, no items,
 * no price), completes when the buyer's card passes its zero-amount check, and then names the saved instrument.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { createSession, HOUR, inFuture, sellableOffer, setStored } from '../helpers/checkout';
import { rows } from '../helpers/db';
import { cascade } from '../helpers/transactions';
import { CARDS, createCustomer, mintToken, openSession, publicHeaders } from '../helpers/vault';

describe('Checkout sessions in setup mode', () => {
  let tenant: Tenant;
  let customerId: string;
  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
  });
  beforeEach(async () => {
    customerId = await createCustomer(tenant);
  });

  const setupBody = (extra: Record<string, unknown> = {}) => ({
    mode: 'setup',
    customer_id: customerId,
    selected_currency: 'USD',
    ...extra,
  });
  const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api.post('/checkout-sessions', { key: tenant.merchant_secret_key, body, headers });
  const read = async (id: string) =>
    expectWrapped(await api.get(`/checkout-sessions/${id}`, { key: tenant.merchant_secret_key }), 200);

  /** What the hosted page does in setup mode: a browser session for the checkout, the card tokenized, then saved. */
  async function saveOnPage(checkoutId: string, card: (typeof CARDS)[keyof typeof CARDS] = CARDS.visa) {
    const session = await openSession(tenant, { checkoutSessionId: checkoutId });
    const token = await mintToken(tenant, session, card);
    return api.post(`/sessions/${session.sessionId}/payment-instruments`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { tokenId: token.tokenId },
    });
  }

  describe('POST /checkout-sessions with mode', () => {
    it('a setup session is created for its customer with mode setup, no offer, no items and no instrument yet', async () => {
      const data = expectWrapped(await create(setupBody()), 201);
      expect(data).to.include({
        mode: 'setup',
        offer_id: null,
        customer_id: customerId,
        selected_currency: 'USD',
        status: 'customer_identified',
        payment_instrument_id: null,
      });
      expect(data.items).to.deep.equal([]);
    });

    it('a session without mode is a payment session and says so', async () => {
      const { offer } = await sellableOffer(tenant);
      const session = await createSession(tenant, { offer_id: offer.id, customer_id: customerId });
      expect(session).to.include({ mode: 'payment', offer_id: offer.id, payment_instrument_id: null });
    });

    it('a payment session still requires offer_id (400 naming it)', async () => {
      expectFieldErrors(await create({ customer_id: customerId }), ['offer_id']);
    });

    it('setup requires customer_id or customer (400 naming them)', async () => {
      expectFieldErrors(await create({ mode: 'setup', selected_currency: 'USD' }), ['customer_id', 'customer']);
    });

    it('setup requires selected_currency, the currency of the zero-amount check (400 naming it)', async () => {
      expectFieldErrors(await create({ mode: 'setup', customer_id: customerId }), ['selected_currency']);
    });

    for (const [field, value] of [
      ['offer_id', 'ofr_5tYh2KdQ8pLm'],
      ['items', [{ offer_id: 'ofr_5tYh2KdQ8pLm' }]],
    ] as const) {
      it(`setup forbids ${field}: a setup session sells nothing (400 naming it, nothing created)`, async () => {
        const before = await rows('select count(*)::int as n from checkout_sessions where merchant_id = ?', [
          tenant.merchant_id,
        ]);
        expectFieldErrors(await create(setupBody({ [field]: value })), [field]);
        const after = await rows('select count(*)::int as n from checkout_sessions where merchant_id = ?', [
          tenant.merchant_id,
        ]);
        expect(after[0].n).to.equal(before[0].n);
      });
    }

    it('a setup session takes no items afterwards either (422 CHECKOUT_SETUP_MODE)', async () => {
      const checkout = expectWrapped(await create(setupBody()), 201);
      const { offer } = await sellableOffer(tenant);
      const res = await api.post(`/checkout-sessions/${checkout.id}/items`, {
        key: tenant.merchant_secret_key,
        body: { offer_id: offer.id },
      });
      expectError(res, 422, 'business_rule_error', 'CHECKOUT_SETUP_MODE');
    });

    it('a setup session cannot be paid: the hosted confirm refuses it (422 CHECKOUT_SETUP_MODE)', async () => {
      const checkout = expectWrapped(await create(setupBody()), 201);
      const session = await openSession(tenant, { checkoutSessionId: checkout.id });
      await mintToken(tenant, session, CARDS.visa, { purpose: 'one_time' });
      const res = await api.post(`/sessions/${session.sessionId}/checkout/confirm`, {
        headers: publicHeaders(tenant.merchant_public_key),
        body: {},
      });
      expectError(res, 422, 'business_rule_error', 'CHECKOUT_SETUP_MODE');
    });

    it('a setup session takes no payment: POST /transactions with its id is 422 CHECKOUT_SETUP_MODE, nothing created', async () => {
      const checkout = expectWrapped(await create(setupBody()), 201);
      const res = await api.post('/transactions', {
        key: tenant.merchant_secret_key,
        headers: { 'idempotency-key': randomUUID() },
        body: {
          payment_method: 'credit_card',
          charge_type: 'payment',
          country: 'BR',
          checkout_session_id: checkout.id,
        },
      });
      expectError(res, 422, 'business_rule_error', 'CHECKOUT_SETUP_MODE');
      expect(await rows('select id from transactions where customer_id = ?', [customerId])).to.deep.equal([]);
      expect(await rows('select id from orders where checkout_session_id = ?', [checkout.id])).to.deep.equal([]);
      expect(await read(checkout.id)).to.include({ status: 'customer_identified', payment_instrument_id: null });
    });

    it('an unknown mode is a 400 naming mode', async () => {
      expectFieldErrors(await create(setupBody({ mode: 'subscription' })), ['mode']);
    });

    it('a replay of the create under one Idempotency-Key answers the same session (200) and creates one', async () => {
      const headers = { 'idempotency-key': randomUUID() };
      const first = await create(setupBody(), headers);
      const replay = await create(setupBody(), headers);
      expect([first.status, replay.status]).to.deep.equal([201, 200]);
      expect(replay.body.data).to.deep.equal(first.body.data);
      const stored = await rows('select count(*)::int as n from checkout_sessions where customer_id = ?', [customerId]);
      expect(stored[0].n).to.equal(1);
    });
  });

  describe('the buyer saves a card', () => {
    it("the page's view of a setup session: mode setup, nothing due, no line, no saved card offered", async () => {
      const checkout = expectWrapped(await create(setupBody()), 201);
      const session = await openSession(tenant, { checkoutSessionId: checkout.id });
      const res = await api.get('/sessions/checkout', {
        headers: publicHeaders(tenant.merchant_public_key, session.sessionId),
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.checkout).to.include({ mode: 'setup', offerId: null, paymentInstrumentId: null });
      expect(res.body.summary).to.include({ currency: 'USD', dueToday: 0 });
      expect(res.body.summary.lines).to.deep.equal([]);
      expect(res.body.savedInstruments).to.deep.equal([]);
      expect(res.body.paymentMethods.cards).to.equal(true);
    });

    it('an approved zero-amount check saves the card for the customer and completes the session naming it', async () => {
      const checkout = expectWrapped(await create(setupBody()), 201);
      const saved = await saveOnPage(checkout.id);
      expect(saved.status, saved.text).to.equal(201);
      expect(saved.body).to.include({ verified: true, status: 'active' });

      const session = await read(checkout.id);
      expect(session).to.include({ status: 'completed', payment_instrument_id: saved.body.paymentInstrumentId });
      expect(session.completed_at).to.be.a('string');
      const [instrument] = await rows('select customer_id, status from payment_instruments where id = ?', [
        saved.body.paymentInstrumentId,
      ]);
      expect(instrument).to.deep.equal({ customer_id: customerId, status: 'active' });
      // Recorded as Document 3's card_setup order of this checkout, as a card saved through the SDK is.
      const orders = await rows('select order_type, status from orders where checkout_session_id = ?', [checkout.id]);
      expect(orders).to.deep.equal([{ order_type: 'card_setup', status: 'authorized' }]);
    });

    it('the merchant charges the saved card by API afterwards', async () => {
      const checkout = expectWrapped(await create(setupBody()), 201);
      expect((await saveOnPage(checkout.id)).status).to.equal(201);
      const { payment_instrument_id } = await read(checkout.id);
      const charge = await api.post('/transactions', {
        key: tenant.merchant_secret_key,
        headers: { 'idempotency-key': randomUUID() },
        body: {
          payment_method: 'credit_card',
          charge_type: 'payment',
          country: 'BR',
          amount: 2500,
          currency: 'USD',
          customer_id: customerId,
          payment_instrument_id,
        },
      });
      expect(charge.status, charge.text).to.be.oneOf([200, 201]);
      expect(charge.body.data.status).to.equal('authorized');
    });

    it('a declined check leaves the session open and saves nothing; another card then saves', async () => {
      const checkout = expectWrapped(await create(setupBody()), 201);
      const declined = await saveOnPage(checkout.id, CARDS.doNotHonor);
      expect(declined.status, declined.text).to.equal(201);
      expect(declined.body).to.include({ verified: false, paymentInstrumentId: null });
      expect(await read(checkout.id)).to.include({ status: 'customer_identified', payment_instrument_id: null });

      const saved = await saveOnPage(checkout.id);
      expect(saved.body).to.include({ verified: true });
      expect(await read(checkout.id)).to.include({
        status: 'completed',
        payment_instrument_id: saved.body.paymentInstrumentId,
      });
    });

    it('a completed setup session saves no second card (a second tab is refused, one instrument)', async () => {
      const checkout = expectWrapped(await create(setupBody()), 201);
      expect((await saveOnPage(checkout.id)).status).to.equal(201);
      expectError(
        await saveOnPage(checkout.id, CARDS.mastercard),
        422,
        'business_rule_error',
        'INVALID_STATE_TRANSITION',
      );
      const instruments = await rows('select id from payment_instruments where customer_id = ?', [customerId]);
      expect(instruments).to.have.length(1);
    });

    it('a setup session held by a verification under way refuses another (409), so two tabs save one card', async () => {
      const checkout = expectWrapped(await create(setupBody()), 201);
      await rows(
        `update checkout_sessions set status = 'payment_pending', paying_transaction_id = 'card-verification-tok_other'
          where id = ?`,
        [checkout.id],
      );
      expectError(await saveOnPage(checkout.id), 409, 'conflict_error', 'CHECKOUT_SESSION_PAYMENT_IN_PROGRESS');
      expect(await rows('select id from payment_instruments where customer_id = ?', [customerId])).to.deep.equal([]);
    });

    it('an expired setup session saves no card (422) and reads expired', async () => {
      const checkout = expectWrapped(await create(setupBody({ expires_at: inFuture(HOUR) })), 201);
      await setStored(checkout.id, { expires_at: new Date(Date.now() - 1000) });
      expect((await read(checkout.id)).status).to.equal('expired');
      const res = await saveOnPage(checkout.id);
      expect(res.status, res.text).to.be.oneOf([422]);
      expect(await rows('select id from payment_instruments where customer_id = ?', [customerId])).to.deep.equal([]);
    });
  });
});
