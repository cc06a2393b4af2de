/**
 * POST /sessions/:sessionId/checkout/confirm — the buyer pays the checkout from the browser (public key + the
 * checkout's browser session) through the one charge path; and the summary GET /sessions/checkout shows.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { createSession, setStored, storedStatus } from '../helpers/checkout';
import { createClock } from '../helpers/test-clocks';
import { createOffer, type OfferFixture } from '../helpers/catalog';
import { rows } from '../helpers/connectors';
import { cascade } from '../helpers/transactions';
import { CARDS, mintToken, openSession, publicHeaders, type SessionData } from '../helpers/vault';
import { qrDataUrl } from '../../api/lib/qr-code';

interface Buyer {
  tenant: Tenant;
  checkoutId: string;
  session: SessionData;
}

async function buyer(tenant: Tenant, offer: OfferFixture = { billingCycle: 'none' }, currency = 'USD'): Promise<Buyer> {
  const { offer: created } = await createOffer(tenant.merchant_id, offer);
  const checkout = await createSession(tenant, { offer_id: created.id, selected_currency: currency });
  const session = await openSession(tenant, { checkoutSessionId: checkout.id });
  return { tenant, checkoutId: checkout.id, session };
}

const confirm = (b: Buyer, body: Record<string, unknown> = {}) =>
  api.post(`/sessions/${b.session.sessionId}/checkout/confirm`, {
    headers: publicHeaders(b.tenant.merchant_public_key),
    body,
  });

const card = (b: Buyer, c: (typeof CARDS)[keyof typeof CARDS] = CARDS.visa) =>
  mintToken(b.tenant, b.session, c, { purpose: 'one_time' });

const checkoutTransactions = (checkoutId: string) =>
  rows('select id, status, amount, currency from transactions where checkout_session_id = ? order by created_at', [
    checkoutId,
  ]);

describe('GET /sessions/checkout summary (what the hosted page shows)', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  it('names each line by product and offer, with due today from the first-charge rules and nothing later for a one-time offer', async () => {
    const b = await buyer(tenant);
    const res = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, b.session.sessionId),
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.summary).to.include({ currency: 'USD', dueToday: 999 });
    expect(res.body.summary.lines[0]).to.include({
      quantity: 1,
      unitAmount: 999,
      dueToday: 999,
      firstCharge: 'standard',
      recurring: null,
    });
    expect(res.body.summary.lines[0].productName).to.match(/^Plan /);
    expect(res.body.summary.lines[0].offerName).to.match(/^Offer /);
    expect(res.body.payment).to.equal(null);
  });

  it('shows a trial with a joining fee as the fee today and the standard price from the end of the trial', async () => {
    const b = await buyer(tenant, {
      billingCycle: 'monthly',
      freeTrial: true,
      trialDays: 14,
      setupCharge: true,
      prices: [{ currency: 'USD', amount: 2900, firstChargeAmount: 500, isDefault: true }],
    });
    const res = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, b.session.sessionId),
    });
    const [line] = res.body.summary.lines;
    expect(line).to.include({ dueToday: 500, firstCharge: 'trial_with_joining_fee', trialDays: 14 });
    expect(line.recurring).to.include({ amount: 2900, billingCycle: 'monthly' });
    const days = (Date.parse(line.recurring.firstBillingAt) - Date.now()) / 86_400_000;
    expect(days).to.be.within(13.9, 14.1);
  });

  it("dates a test clock's customer's first billing on the clock's time, as its subscription will be", async () => {
    const clock = await createClock(tenant, '2027-01-01T00:00:00.000Z');
    const { offer } = await createOffer(tenant.merchant_id, {
      billingCycle: 'monthly',
      freeTrial: true,
      trialDays: 14,
      prices: [{ currency: 'USD', amount: 2900, isDefault: true }],
    });
    const checkout = await createSession(tenant, {
      offer_id: offer.id,
      selected_currency: 'USD',
      customer: customerInput({ test_clock_id: clock.id }),
    });
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    const res = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, session.sessionId),
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.summary.lines[0].recurring.firstBillingAt).to.equal('2027-01-15T00:00:00.000Z');
  });
});

describe('POST /sessions/:sessionId/checkout/confirm', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
  });

  it('pays the checkout with its newest card token: amount and currency from the session, order created, checkout completed', async () => {
    const b = await buyer(tenant);
    await card(b);
    const res = await confirm(b);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({
      outcome: 'succeeded',
      amount: 999,
      currency: 'USD',
      paymentMethod: 'credit_card',
      checkoutStatus: 'completed',
      declineType: null,
    });
    expect(res.body.orderId).to.match(/^ord_/);
    const tx = await api.get(`/transactions/${res.body.transactionId}`, { key: tenant.merchant_secret_key });
    expect(tx.body.data).to.include({ status: 'authorized', amount_authorized: 999, currency: 'USD' });
    expect(await storedStatus(b.checkoutId)).to.equal('completed');
  });

  it('amounts come from the session only: a body naming an amount, currency or customer is refused', async () => {
    const b = await buyer(tenant);
    await card(b);
    for (const extra of [{ amount: 1 }, { currency: 'EUR' }, { customerId: 'cust_x' }, { tokenId: 'tok_x' }]) {
      const res = await confirm(b, extra);
      expect(res.status, `${JSON.stringify(extra)}: ${res.text}`).to.equal(400);
    }
    expect(await checkoutTransactions(b.checkoutId)).to.have.length(0);
  });

  it('is idempotent per checkout: two concurrent confirms and a later retry name one transaction, one charge', async () => {
    const b = await buyer(tenant);
    await card(b);
    const [first, second] = await Promise.all([confirm(b), confirm(b)]);
    expect(first.status, first.text).to.equal(200);
    expect(second.status, second.text).to.equal(200);
    expect(second.body.transactionId).to.equal(first.body.transactionId);
    const retry = await confirm(b);
    expect(retry.status, retry.text).to.equal(200);
    expect(retry.body).to.include({ transactionId: first.body.transactionId, outcome: 'succeeded' });
    expect(await checkoutTransactions(b.checkoutId)).to.have.length(1);
  });

  it('a decline is told in plain words and leaves the checkout payable: another card then pays it', async () => {
    const b = await buyer(tenant);
    await card(b, CARDS.doNotHonor);
    const declined = await confirm(b);
    expect(declined.status, declined.text).to.equal(200);
    expect(declined.body).to.include({ outcome: 'declined', declineType: 'soft_decline' });
    expect(declined.body.message).to.match(/declined/i);
    expect(declined.body.message).to.not.match(/do_not_honou?r|05|refused/i);
    expect(declined.body.checkoutStatus).to.equal('customer_identified');
    await card(b);
    const paid = await confirm(b);
    expect(paid.body).to.include({ outcome: 'succeeded', checkoutStatus: 'completed' });
    expect(paid.body.transactionId).to.not.equal(declined.body.transactionId);
    const statuses = (await checkoutTransactions(b.checkoutId)).map((t: any) => t.status);
    expect(statuses).to.deep.equal(['failed', 'authorized']);
  });

  for (const [name, columns] of [
    ['completed', { status: 'completed' }],
    ['expired', { expires_at: new Date(Date.now() - 1000) }],
    ['abandoned', { status: 'abandoned' }],
  ] as const) {
    it(`refuses a ${name} checkout session (422 INVALID_STATE_TRANSITION), charging nothing`, async () => {
      const b = await buyer(tenant);
      await card(b);
      await setStored(b.checkoutId, columns);
      const res = await confirm(b);
      expect(res.status, res.text).to.equal(422);
      expect(res.body.error.code).to.equal('INVALID_STATE_TRANSITION');
      expect(await checkoutTransactions(b.checkoutId)).to.have.length(0);
    });
  }

  it('a recurring offer paid from the browser starts its subscription exactly as POST /transactions does (one code path)', async () => {
    const b = await buyer(tenant, { billingCycle: 'monthly' });
    await card(b);
    const res = await confirm(b);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ outcome: 'succeeded', amount: 999, checkoutStatus: 'completed' });
    expect(res.body.subscription).to.include({ status: 'active' });
    expect(res.body.subscription.id).to.match(/^sub_/);
    const key = tenant.merchant_secret_key;
    const tx = (await api.get(`/transactions/${res.body.transactionId}`, { key })).body.data;
    expect(tx).to.include({ subscription_id: res.body.subscription.id, charge_type: 'payment' });
    expect(tx.payment_instrument_id).to.match(/^pi_/);
    const sub = await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${tx.subscription_id}`, { key });
    expect(sub.status, sub.text).to.equal(200);
    const checkout = (await api.get(`/checkout-sessions/${b.checkoutId}`, { key })).body.data;
    expect(sub.body.data).to.include({
      status: 'active',
      customer_id: checkout.customer_id,
      payment_instrument_id: tx.payment_instrument_id,
      cycles_completed: 1,
      next_billing_at: res.body.subscription.nextBillingAt,
    });
    const transitions = await api.get(
      `/merchants/${tenant.merchant_id}/subscriptions/${sub.body.data.id}/transitions`,
      {
        key,
      },
    );
    expect(transitions.body.data.map((t: any) => [t.transition_type, t.order_id])).to.deep.equal([
      ['creation', tx.order_id],
    ]);

    // The same rules as the server-side charge: a second live subscription to the plan is refused before charging.
    const again = await createSession(tenant, {
      offer_id: checkout.offer_id,
      customer_id: checkout.customer_id,
      selected_currency: 'USD',
    });
    const second = {
      tenant,
      checkoutId: again.id,
      session: await openSession(tenant, { checkoutSessionId: again.id }),
    };
    await card(second);
    const refused = await confirm(second);
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.body.error).to.include({ code: 'SUBSCRIPTION_ALREADY_EXISTS' });
    expect(refused.body.error.details).to.include({ subscription_id: sub.body.data.id });
    expect(await checkoutTransactions(again.id)).to.have.length(0);
  });

  it('a free-trial offer paid from the browser validates the card at zero amount and starts the subscription trialing', async () => {
    const b = await buyer(tenant, { billingCycle: 'monthly', freeTrial: true, trialDays: 14 });
    await card(b);
    const res = await confirm(b);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ outcome: 'succeeded', amount: 0, checkoutStatus: 'completed' });
    expect(res.body.subscription).to.include({ status: 'trialing' });
    expect(res.body.subscription.nextBillingAt).to.equal(res.body.subscription.trialEnd);
    const key = tenant.merchant_secret_key;
    const tx = (await api.get(`/transactions/${res.body.transactionId}`, { key })).body.data;
    expect(tx).to.include({ charge_type: 'setup_verification', amount_authorized: 0, status: 'authorized' });
    const order = (await api.get(`/orders/${tx.order_id}`, { key })).body.data;
    expect(order).to.include({ order_type: 'trial_setup', total_amount: 0 });
    const sub = (await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${tx.subscription_id}`, { key })).body
      .data;
    expect(sub).to.include({ status: 'trialing', cycles_completed: 0, current_amount: 999 });
  });

  it('refuses a browser session opened without a checkout (404) and another merchant key (404)', async () => {
    const plain = await openSession(tenant);
    const res = await api.post(`/sessions/${plain.sessionId}/checkout/confirm`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: {},
    });
    expect(res.status, res.text).to.equal(404);
    const other = await createTenant();
    const b = await buyer(tenant);
    const foreign = await api.post(`/sessions/${b.session.sessionId}/checkout/confirm`, {
      headers: publicHeaders(other.merchant_public_key),
      body: {},
    });
    expect(foreign.status, foreign.text).to.equal(404);
  });
});

describe('checkout confirm: failed-attempt limits (card-testing defence)', () => {
  it('after 3 declines in one browser session answers 429 without charging; the checkout stays payable', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const b = await buyer(tenant);
    for (let i = 0; i < 3; i += 1) {
      await card(b, CARDS.doNotHonor);
      expect((await confirm(b)).body.outcome).to.equal('declined');
    }
    await card(b);
    const refused = await confirm(b);
    expect(refused.status, refused.text).to.equal(429);
    expect(refused.body.error.code).to.equal('RATE_LIMIT_EXCEEDED');
    expect(await checkoutTransactions(b.checkoutId)).to.have.length(3);
    expect(await storedStatus(b.checkoutId)).to.equal('customer_identified');
  });

  it('after 5 unsuccessful payments of one checkout answers 429, whichever browser session tries', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const b = await buyer(tenant);
    for (let i = 0; i < 5; i += 1) {
      // A new browser session every two tries: the per-session limit (3) never trips.
      if (i % 2 === 0) b.session = await openSession(tenant, { checkoutSessionId: b.checkoutId });
      await card(b, CARDS.doNotHonor);
      expect((await confirm(b)).body.outcome).to.equal('declined');
    }
    b.session = await openSession(tenant, { checkoutSessionId: b.checkoutId });
    await card(b);
    const refused = await confirm(b);
    expect(refused.status, refused.text).to.equal(429);
    expect(await checkoutTransactions(b.checkoutId)).to.have.length(5);
  });
});

describe('checkout confirm: pending pix and boleto', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_b']);
  });

  it('a recurring offer is paid by card only: pix is refused (400 on payment_method), nothing charged, the checkout stays payable', async () => {
    const b = await buyer(tenant, { billingCycle: 'monthly' }, 'BRL');
    const res = await confirm(b, { paymentMethod: 'pix' });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error).to.include({ type: 'validation_error' });
    expect(res.body.error.details).to.have.property('payment_method');
    expect(await checkoutTransactions(b.checkoutId)).to.have.length(0);
    expect(await storedStatus(b.checkoutId)).to.not.equal('completed');
  });

  it('a pending pix carries its code as a QR image drawn from the code itself (SVG data URL)', async () => {
    const b = await buyer(tenant, { billingCycle: 'none' }, 'BRL');
    const res = await confirm(b, { paymentMethod: 'pix' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ outcome: 'pending', paymentMethod: 'pix' });
    const code = res.body.paymentInstructions.qr_code_text;
    expect(code).to.match(/^000201/);
    expect(res.body.qrCodeImage).to.equal(qrDataUrl(code));
    const view = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, b.session.sessionId),
    });
    expect(view.body.payment.qrCodeImage).to.equal(res.body.qrCodeImage);
  });

  it('a pending boleto carries its digitable line and due date and no QR image; the checkout offers boleto', async () => {
    const b = await buyer(tenant, { billingCycle: 'none' }, 'BRL');
    const view = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, b.session.sessionId),
    });
    expect(view.body.paymentMethods).to.include({ pix: true, boleto: true });
    const res = await confirm(b, { paymentMethod: 'boleto' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ outcome: 'pending', paymentMethod: 'boleto', qrCodeImage: null });
    expect(res.body.paymentInstructions.barcode).to.match(/^\d{5}\.\d{5} \d{5}\.\d{6} /);
    expect(Date.parse(res.body.paymentInstructions.expires_at)).to.be.greaterThan(Date.now());
  });
});
