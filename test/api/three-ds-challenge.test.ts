/**
 * 3-D Secure in every dialect that has it (provider_a as Stripe, checkout as Checkout.com, provider_c as Mercado
 * Pago, provider_b as Adyen, whose verdict is its /payments/details answer to the redirectResult the buyer's return
 * carries): a card the issuer challenges answers 201 pending with next_action at once; the sandbox's challenge page is a form a script completes with one POST, following the redirects through
 * Switchyard's return endpoint to the merchant's return_url; the transaction then reads as the provider decided,
 * and every attempt says how it was authenticated.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, giveWebsite, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/connectors';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

const CHALLENGE = { number: '4000000000003220', cvc: '123', brand: 'visa' };
const CHALLENGE_THEN_DECLINE = { number: '4000008400001629', cvc: '123', brand: 'visa' };
const RETURN_URL = 'http://localhost:5999/shop/thanks?order=42';

/**
 * Each dialect: provider_a's issuer challenges a card nobody asked to authenticate (Stripe's `automatic`); Checkout.com
 * and Mercado Pago run 3-D Secure only when asked, so their connectors sit behind require_3ds `always`, as does
 * Adyen's (`attemptAuthentication: always`). What each reports of a passed challenge: Mercado Pago states no version
 * or ECI.
 */
const DIALECTS = [
  {
    slug: 'provider_a',
    requested: false,
    page: /\/_sandbox\/challenge\/pi_/,
    version: '2.2.0',
    eci: '05',
    currency: 'USD',
  },
  {
    slug: 'checkout',
    requested: true,
    page: /\/_sandbox\/challenge\/pay_/,
    version: '2.2.0',
    eci: '05',
    currency: 'USD',
  },
  {
    slug: 'provider_c',
    requested: true,
    page: /\/_sandbox\/challenge\/\d+$/,
    version: null,
    eci: null,
    currency: 'BRL',
  },
  {
    slug: 'provider_b',
    requested: true,
    page: /\/_sandbox\/challenge\/[A-Z0-9]{16}$/,
    version: '2.2.0',
    eci: '05',
    currency: 'USD',
  },
] as const;
type Dialect = (typeof DIALECTS)[number];

/**
 * Every connector of the active profile behind an action node with require_3ds `always`, for a merchant with the
 * website 3-D Secure asks for.
 */
async function requireThreeDs(tenant: Tenant, connectors: Array<{ id: string }>) {
  await giveWebsite(tenant);
  const base = `/merchants/${tenant.merchant_id}/routing-profiles`;
  const profiles = (await api.get(base, { key: tenant.merchant_secret_key })).body.data;
  const profile = profiles.find((candidate: { is_active: boolean }) => candidate.is_active) ?? profiles[0];
  const nodesPath = `${base}/${profile.id}/nodes`;
  const nodes = (await api.get(nodesPath, { key: tenant.merchant_secret_key })).body.data;
  for (const [position, connector] of connectors.entries()) {
    const node = nodes.find(
      (candidate: { merchant_connector_id: string }) => candidate.merchant_connector_id === connector.id,
    );
    const res = node
      ? await api.patch(`${nodesPath}/${node.id}`, { key: tenant.merchant_secret_key, body: { require_3ds: 'always' } })
      : await api.post(nodesPath, {
          key: tenant.merchant_secret_key,
          body: { node_type: 'action', merchant_connector_id: connector.id, position, require_3ds: 'always' },
        });
    expect(res.status, res.text).to.be.oneOf([200, 201]);
  }
}

/** The dialect's connectors (one per slug given), 3-D Secure required where the dialect runs it only when asked. */
async function connect(tenant: Tenant, dialect: Dialect, count = 1) {
  const connectors = await cascade(tenant, Array<string>(count).fill(dialect.slug), { webhooks: false });
  if (dialect.requested) await requireThreeDs(tenant, connectors);
}

/** Submits the challenge page's form and follows every redirect; returns the last Location before the shop. */
async function completeChallenge(url: string, outcome: 'authenticated' | 'failed'): Promise<string> {
  const page = await fetch(url);
  expect(page.status).to.equal(200);
  const html = await page.text();
  expect(html).to.include('Complete').and.to.include('Fail');
  let response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `outcome=${outcome}`,
    redirect: 'manual',
  });
  let location = '';
  // The sandbox → Switchyard's return endpoint → the shop's return_url (not served here: stop before it).
  while (
    response.status === 303 &&
    !(location = response.headers.get('location')!).startsWith(RETURN_URL.split('?')[0])
  ) {
    response = await fetch(location, { redirect: 'manual' });
  }
  return location;
}

async function challenged(tenant: Tenant, dialect: Dialect, card: typeof CHALLENGE) {
  await connect(tenant, dialect);
  const res = await charge(
    tenant,
    cardCharge(await cardToken(tenant, card), { return_url: RETURN_URL, currency: dialect.currency }),
  );
  expect(res.status, res.text).to.equal(201);
  return res.body.data;
}

const attemptsOf = async (tenant: Tenant, id: string) =>
  (await api.get(`/transactions/${id}/attempts`, { key: tenant.merchant_secret_key })).body.data;

for (const dialect of DIALECTS)
  describe(`3-D Secure challenge (${dialect.slug})`, () => {
    let tenant: Tenant;
    beforeEach(async () => {
      tenant = await createTenant();
      // 3-D Secure needs the merchant's website, an issuer's challenge too.
      await giveWebsite(tenant);
    });

    it('an issuer that demands authentication answers 201 pending with next_action and records transaction.action_required', async () => {
      const tx = await challenged(tenant, dialect, CHALLENGE);
      expect(tx.status).to.equal('pending');
      expect(tx.next_action).to.include({ type: 'redirect_to_url' });
      expect(tx.next_action.url).to.match(dialect.page);
      expect(Date.parse(tx.next_action.expires_at)).to.be.greaterThan(Date.now());
      expect(tx.timeline[0].three_ds).to.include({ requested: dialect.requested, status: 'challenged' });
      const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
      expect(read.next_action).to.deep.equal(tx.next_action);
      const events = await rows(`select type, data from events where merchant_id = ? and data->>'id' = ?`, [
        tenant.merchant_id,
        tx.id,
      ]);
      const announced = events.filter((event) => event.type === 'transaction.action_required');
      expect(announced).to.have.length(1);
      expect(announced[0].data.next_action).to.deep.equal(tx.next_action);
    });

    it('a passed challenge returns the buyer to return_url with transaction_id, and the charge is authorized, authenticated with liability shift', async () => {
      const tx = await challenged(tenant, dialect, CHALLENGE);
      const landed = await completeChallenge(tx.next_action.url, 'authenticated');
      expect(landed).to.equal(`${RETURN_URL}&transaction_id=${tx.id}`);
      const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
      expect(read).to.include({ status: 'authorized', next_action: null, amount_authorized: 1500 });
      const [attempt] = await attemptsOf(tenant, tx.id);
      expect(attempt).to.include({ status: 'success', three_ds_status: 'authenticated' });
      expect(attempt.three_ds).to.deep.equal({
        requested: dialect.requested,
        status: 'authenticated',
        version: dialect.version,
        eci: dialect.eci,
        liability_shift: true,
      });
    });

    it('a failed challenge fails the charge authentication_failed without trying another connector', async () => {
      await connect(tenant, dialect, 2);
      const res = await charge(
        tenant,
        cardCharge(await cardToken(tenant, CHALLENGE), { return_url: RETURN_URL, currency: dialect.currency }),
      );
      const tx = res.body.data;
      await completeChallenge(tx.next_action.url, 'failed');
      const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
      expect(read).to.include({ status: 'failed', failure_code: 'authentication_failed' });
      const attempts = await attemptsOf(tenant, tx.id);
      expect(attempts).to.have.length(1);
      expect(attempts[0].three_ds).to.include({ status: 'failed', liability_shift: false });
    });

    it('a challenge passed and then declined by the issuer fails with the decline, the attempt authenticated', async () => {
      const tx = await challenged(tenant, dialect, CHALLENGE_THEN_DECLINE);
      await completeChallenge(tx.next_action.url, 'authenticated');
      const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
      expect(read.status).to.equal('failed');
      expect(read.failure_code).to.not.equal('authentication_failed');
      const [attempt] = await attemptsOf(tenant, tx.id);
      expect(attempt.three_ds).to.include({ status: 'authenticated', liability_shift: true });
    });

    it('refuses a return_url that is not https (or http on localhost): 400 on return_url', async () => {
      await connect(tenant, dialect);
      const res = await charge(
        tenant,
        cardCharge(await cardToken(tenant, CHALLENGE), { return_url: 'http://shop.example/thanks' }),
      );
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error.details).to.have.property('return_url');
    });
  });
