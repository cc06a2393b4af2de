/**
 * A checkout paid from the browser (POST /sessions/:sessionId/checkout/confirm) with a card the issuer challenges:
 * the confirm answers pending with nextAction, the page's returnUrl is where the challenge comes back to (only the
 * hosted checkout's own origin or the merchant's website: the return endpoint must not redirect anywhere a caller
 * names), and the checkout's payment then says why it failed when the buyer did not authenticate.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { createSession } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { rows } from '../helpers/connectors';
import { stack } from '../helpers/stack';
import { cascade } from '../helpers/transactions';
import { mintToken, openSession, publicHeaders, type SessionData } from '../helpers/vault';

const CHALLENGE = { number: '4000000000003220', cvc: '123', brand: 'visa' };

interface Buyer {
  checkoutId: string;
  session: SessionData;
}

describe('Checkout confirm with a 3-D Secure challenge', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a'], { webhooks: false });
    await rows('update merchants set website = ? where id = ?', ['https://www.shop.example.com', tenant.merchant_id]);
  });

  async function buyer(): Promise<Buyer> {
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, { offer_id: offer.id, selected_currency: 'USD' });
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    await mintToken(tenant, session, CHALLENGE, { purpose: 'one_time' });
    return { checkoutId: checkout.id, session };
  }

  const confirm = (b: Buyer, body: Record<string, unknown>) =>
    api.post(`/sessions/${b.session.sessionId}/checkout/confirm`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body,
    });

  const latestPayment = async (b: Buyer) =>
    (await api.get('/sessions/checkout', { headers: publicHeaders(tenant.merchant_public_key, b.session.sessionId) }))
      .body.payment;

  const checkoutTransactions = (checkoutId: string) =>
    rows('select id, return_url from transactions where checkout_session_id = ?', [checkoutId]);

  it("answers pending with nextAction, keeps the hosted page's returnUrl, and a failed challenge reads failed authentication_failed", async () => {
    const b = await buyer();
    const returnUrl = `${stack().url}/checkout/${b.checkoutId}`;
    const res = await confirm(b, { returnUrl });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ outcome: 'pending', paymentMethod: 'credit_card', failureCode: null });
    expect(res.body.nextAction).to.include({ type: 'redirect_to_url' });
    expect(res.body.nextAction.url).to.match(/\/_sandbox\/challenge\/pi_/);
    expect(Date.parse(res.body.nextAction.expiresAt)).to.be.greaterThan(Date.now());
    expect(await checkoutTransactions(b.checkoutId)).to.deep.equal([
      { id: res.body.transactionId, return_url: returnUrl },
    ]);

    const challenge = await fetch(res.body.nextAction.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=failed',
      redirect: 'manual',
    });
    const back = await fetch(challenge.headers.get('location')!, { redirect: 'manual' });
    expect(back.status).to.equal(303);
    expect(back.headers.get('location')).to.equal(`${returnUrl}?transaction_id=${res.body.transactionId}`);
    const payment = await latestPayment(b);
    expect(payment).to.include({
      transactionId: res.body.transactionId,
      outcome: 'failed',
      failureCode: 'authentication_failed',
      nextAction: null,
      checkoutStatus: 'customer_identified',
    });
    expect(payment.message).to.match(/bank could not verify/i);
  });

  it("takes a returnUrl on the merchant's website or one of its subdomains", async () => {
    const b = await buyer();
    const res = await confirm(b, { returnUrl: 'https://pay.shop.example.com/order/42?step=done' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.outcome).to.equal('pending');
  });

  for (const [name, returnUrl] of [
    ['another site', 'https://attacker.example.net/phish'],
    ['a look-alike of the website', 'https://shop.example.com.attacker.example.net/'],
    ['no absolute URL', '/checkout/done'],
  ]) {
    it(`refuses a returnUrl that is ${name}: 400 on returnUrl, nothing charged`, async () => {
      const b = await buyer();
      const res = await confirm(b, { returnUrl });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error.details).to.have.property('returnUrl');
      expect(await checkoutTransactions(b.checkoutId)).to.deep.equal([]);
    });
  }

  it('refuses a returnUrl with pix (nothing is challenged): 400 on returnUrl', async () => {
    const b = await buyer();
    const res = await confirm(b, { paymentMethod: 'pix', returnUrl: `${stack().url}/checkout/${b.checkoutId}` });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error.details).to.have.property('returnUrl');
  });
});
