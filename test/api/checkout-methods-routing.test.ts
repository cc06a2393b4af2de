/**
 * The hosted checkout offers only the payment methods and card brands the merchant's
 * routing can serve — a connector that is active but not in the routing plan (or that cannot take the method or the
 * checkout's currency) adds nothing; GET …/checkout-methods tells staff the same, naming the connectors.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { createSession } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { postConnector } from '../helpers/connectors';
import { openSession, publicHeaders } from '../helpers/vault';

async function checkoutView(tenant: Tenant, currency = 'BRL') {
  const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
  const checkout = await createSession(tenant, { offer_id: offer.id, selected_currency: currency });
  const session = await openSession(tenant, { checkoutSessionId: checkout.id });
  const res = await api.get('/sessions/checkout', {
    headers: publicHeaders(tenant.merchant_public_key, session.sessionId),
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.paymentMethods;
}

async function profile(tenant: Tenant, body: Record<string, unknown>) {
  const res = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
    key: tenant.merchant_secret_key,
    body: { name: 'Plan', is_active: true, ...body },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

async function addAction(tenant: Tenant, profileId: string, connectorId: string) {
  const res = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles/${profileId}/nodes`, {
    key: tenant.merchant_secret_key,
    body: { node_type: 'action', position: 0, merchant_connector_id: connectorId },
  });
  expect(res.status, res.text).to.equal(201);
}

async function checkoutMethods(tenant: Tenant, currency?: string) {
  const res = await api.get(
    `/merchants/${tenant.merchant_id}/checkout-methods${currency ? `?currency=${currency}` : ''}`,
    { key: tenant.merchant_secret_key },
  );
  expect(res.status, res.text).to.equal(200);
  return Object.fromEntries(res.body.methods.map((m: any) => [m.payment_method, m]));
}

describe('The checkout offers only the methods and brands routing can serve', function () {
  this.timeout(60_000);

  it('routing with only a card connector: no pix, although a pix-capable connector is active; routing it makes pix appear', async () => {
    const tenant = await createTenant();
    const cards = await postConnector(tenant, 'provider_a', { name: 'Cards' });
    const pix = await postConnector(tenant, 'provider_c', { name: 'Pix and cards' });
    const plan = await profile(tenant, { payment_method: '*', default_merchant_connector_id: cards.id });

    const before = await checkoutView(tenant);
    expect(before).to.include({ cards: true, pix: false, boleto: false });
    let staff = await checkoutMethods(tenant);
    expect(staff.pix).to.include({ offered: false });
    expect(staff.pix.connectors).to.deep.equal([]);
    expect(staff.credit_card.connectors.map((c: any) => c.id)).to.deep.equal([cards.id]);

    await addAction(tenant, plan.id, pix.id);
    const after = await checkoutView(tenant);
    expect(after).to.include({ cards: true, pix: true, boleto: false });
    staff = await checkoutMethods(tenant);
    expect(staff.pix).to.include({ offered: true });
    expect(staff.pix.connectors).to.deep.equal([{ id: pix.id, name: 'Pix and cards', provider_slug: 'provider_c' }]);
  });

  it('connectors without an active routing profile: the checkout offers nothing (a charge would have no route)', async () => {
    const tenant = await createTenant();
    const cards = await postConnector(tenant, 'provider_b');
    await profile(tenant, { payment_method: '*', default_merchant_connector_id: cards.id, is_active: false });
    expect(await checkoutView(tenant)).to.include({ cards: false, pix: false, boleto: false, wallet: false });
    expect(Object.values(await checkoutMethods(tenant)).map((m: any) => m.offered)).to.deep.equal([
      false,
      false,
      false,
      false,
    ]);
  });

  it('a pix profile whose only connector cannot take pix offers no pix; the exact method wins over *', async () => {
    const tenant = await createTenant();
    const cards = await postConnector(tenant, 'provider_a');
    const both = await postConnector(tenant, 'provider_b');
    await profile(tenant, { payment_method: '*', default_merchant_connector_id: both.id });
    await profile(tenant, { payment_method: 'pix', default_merchant_connector_id: cards.id });
    const view = await checkoutView(tenant);
    // boleto falls to the * profile (provider_b takes it); pix uses its own profile, whose connector can't.
    expect(view).to.include({ pix: false, boleto: true, cards: true });
  });

  it("card brands are those of the routed card connectors only, and a connector without the checkout's currency is left out", async () => {
    const tenant = await createTenant();
    const visaOnly = await postConnector(tenant, 'provider_a', { config: { card_brands: ['visa'] } });
    // provider_b takes elo and BRL; active, but routed only for pix.
    const elo = await postConnector(tenant, 'provider_b', { config: { card_brands: ['visa', 'elo'] } });
    await profile(tenant, { payment_method: 'credit_card', default_merchant_connector_id: visaOnly.id });
    await profile(tenant, { payment_method: 'pix', default_merchant_connector_id: elo.id });
    const view = await checkoutView(tenant);
    expect(view.cardBrands).to.deep.equal(['visa']);
    expect(view).to.include({ cards: true, pix: true });

    // provider_b takes no JPY: in a JPY checkout its pix is not offered.
    const jpy = await checkoutMethods(tenant, 'JPY');
    expect(jpy.pix).to.include({ offered: false });
  });
});
