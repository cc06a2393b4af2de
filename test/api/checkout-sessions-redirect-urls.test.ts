/**
 * success_url and cancel_url on checkout sessions, as Stripe Checkout has them: where the hosted page sends the buyer
 * once the checkout is paid (or its card saved), with {CHECKOUT_SESSION_ID} replaced, and where its "back" link goes.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { sellableOffer } from '../helpers/checkout';
import { rows } from '../helpers/db';
import { createCustomer, openSession, publicHeaders } from '../helpers/vault';

describe('Checkout session success_url and cancel_url', () => {
  let tenant: Tenant;
  let offerId: string;
  before(async () => {
    tenant = await createTenant();
    offerId = (await sellableOffer(tenant)).offer.id;
  });

  const create = async (extra: Record<string, unknown>) =>
    api.post('/checkout-sessions', {
      key: tenant.merchant_secret_key,
      body: { offer_id: offerId, customer_id: await createCustomer(tenant), ...extra },
    });
  const sessionCount = async () =>
    (await rows('select count(*)::int as n from checkout_sessions where merchant_id = ?', [tenant.merchant_id]))[0].n;

  it('both are stored as sent and returned by GET', async () => {
    const urls = {
      success_url: 'https://shop.example/thanks?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://shop.example/cart',
    };
    const created = expectWrapped(await create(urls), 201);
    expect(created).to.include(urls);
    const read = expectWrapped(
      await api.get(`/checkout-sessions/${created.id}`, { key: tenant.merchant_secret_key }),
      200,
    );
    expect(read).to.include(urls);
  });

  it('both are optional and null when not sent, in payment and setup mode', async () => {
    expect(expectWrapped(await create({}), 201)).to.include({ success_url: null, cancel_url: null });
    const setup = expectWrapped(
      await api.post('/checkout-sessions', {
        key: tenant.merchant_secret_key,
        body: {
          mode: 'setup',
          customer_id: await createCustomer(tenant),
          selected_currency: 'USD',
          success_url: 'https://shop.example/card-saved',
        },
      }),
      201,
    );
    expect(setup).to.include({ success_url: 'https://shop.example/card-saved', cancel_url: null });
  });

  it('http is allowed on a loopback host outside production (a developer shop)', async () => {
    const urls = { success_url: 'http://localhost:3000/thanks', cancel_url: 'http://127.0.0.1:3000/cart' };
    expect(expectWrapped(await create(urls), 201)).to.include(urls);
  });

  for (const [field, value] of [
    ['success_url', 'http://shop.example/thanks'],
    ['success_url', 'not a url'],
    ['success_url', 'https://user:secret@shop.example/thanks'],
    ['cancel_url', 'javascript:alert(1)'],
    ['cancel_url', 'ftp://shop.example/cart'],
    ['cancel_url', `https://shop.example/${'a'.repeat(2048)}`],
  ] as const) {
    it(`a ${field} that is not an https address (${value.slice(0, 40)}) is 400 naming it and creates nothing`, async () => {
      const before = await sessionCount();
      expectFieldErrors(await create({ [field]: value }), [field]);
      expect(await sessionCount()).to.equal(before);
    });
  }

  it('they are set on create only: a PATCH naming one is 400 and changes nothing', async () => {
    const created = expectWrapped(await create({ success_url: 'https://shop.example/thanks' }), 201);
    const res = await api.patch(`/checkout-sessions/${created.id}`, {
      key: tenant.merchant_secret_key,
      body: { success_url: 'https://elsewhere.example/' },
    });
    expectFieldErrors(res, ['success_url']);
    const read = expectWrapped(
      await api.get(`/checkout-sessions/${created.id}`, { key: tenant.merchant_secret_key }),
      200,
    );
    expect(read.success_url).to.equal('https://shop.example/thanks');
  });

  it("the hosted page's view carries successUrl with {CHECKOUT_SESSION_ID} replaced, and cancelUrl", async () => {
    const created = expectWrapped(
      await create({
        success_url: 'https://shop.example/thanks?session={CHECKOUT_SESSION_ID}',
        cancel_url: 'https://shop.example/cart',
      }),
      201,
    );
    const session = await openSession(tenant, { checkoutSessionId: created.id });
    const res = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, session.sessionId),
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.checkout).to.include({
      successUrl: `https://shop.example/thanks?session=${created.id}`,
      cancelUrl: 'https://shop.example/cart',
    });
  });
});
