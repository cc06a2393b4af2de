/**
 * Checkout confirm is bound to the confirming browser session's card: anyone holding the same
 * checkout link can open a browser session of their own and mint tokens, but cannot slip a card into (or burn the
 * failure budget of) another buyer's payment.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { createSession } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { rows } from '../helpers/connectors';
import { cascade } from '../helpers/transactions';
import { CARDS, mintToken, openSession, publicHeaders } from '../helpers/vault';

describe('Checkout confirm charges the confirming browser session’s own card', () => {
  it('pays with the card this session tokenized, not a newer one another session of the same checkout minted', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, { offer_id: offer.id, selected_currency: 'USD' });
    const buyer = await openSession(tenant, { checkoutSessionId: checkout.id });
    const intruder = await openSession(tenant, { checkoutSessionId: checkout.id });
    const own = await mintToken(tenant, buyer, CARDS.visa, { purpose: 'one_time' });
    // Minted after the buyer's: the newest token of the checkout.
    const slipped = await mintToken(tenant, intruder, CARDS.doNotHonor, { purpose: 'one_time' });

    const res = await api.post(`/sessions/${buyer.sessionId}/checkout/confirm`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: {},
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.outcome).to.equal('succeeded');
    const [tx] = await rows('select card_token_id from transactions where id = ?', [res.body.transactionId]);
    expect(tx.card_token_id).to.equal(own.tokenId);
    expect((await rows('select status from card_tokens where id = ?', [slipped.tokenId]))[0].status).to.equal('active');
  });

  it('a session that tokenized no card cannot confirm with another session’s token (400, nothing charged)', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, { offer_id: offer.id, selected_currency: 'USD' });
    const buyer = await openSession(tenant, { checkoutSessionId: checkout.id });
    const other = await openSession(tenant, { checkoutSessionId: checkout.id });
    await mintToken(tenant, buyer, CARDS.visa, { purpose: 'one_time' });

    const res = await api.post(`/sessions/${other.sessionId}/checkout/confirm`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: {},
    });
    expect(res.status, res.text).to.equal(400);
    expect(await rows('select id from transactions where checkout_session_id = ?', [checkout.id])).to.deep.equal([]);
  });
});
