/**
 * 3-D Secure on provider_a (Stripe's dialect): a card the issuer challenges answers 201 pending with next_action at
 * once; the sandbox's challenge page is a form a script completes with one POST, following the redirects through
 * Switchyard's return endpoint to the merchant's return_url; the transaction then reads as the provider decided,
 * and every attempt says how it was authenticated.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/connectors';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

const CHALLENGE = { number: '4000000000003220', cvc: '123', brand: 'visa' };
const CHALLENGE_THEN_DECLINE = { number: '4000008400001629', cvc: '123', brand: 'visa' };
const RETURN_URL = 'http://localhost:5999/shop/thanks?order=42';

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

async function challenged(tenant: Tenant, card: typeof CHALLENGE) {
  await cascade(tenant, ['provider_a'], { webhooks: false });
  const res = await charge(tenant, cardCharge(await cardToken(tenant, card), { return_url: RETURN_URL }));
  expect(res.status, res.text).to.equal(201);
  return res.body.data;
}

const attemptsOf = async (tenant: Tenant, id: string) =>
  (await api.get(`/transactions/${id}/attempts`, { key: tenant.merchant_secret_key })).body.data;

describe('3-D Secure challenge (provider_a)', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
    // 3-D Secure needs the merchant's website, an issuer's challenge too.
    const website = await api.patch(`/merchants/${tenant.merchant_id}`, {
      key: tenant.organization_secret_key,
      body: { website: 'https://shop.example.com' },
    });
    expect(website.status, website.text).to.equal(200);
  });

  it('an issuer that demands authentication answers 201 pending with next_action and records transaction.action_required', async () => {
    const tx = await challenged(tenant, CHALLENGE);
    expect(tx.status).to.equal('pending');
    expect(tx.next_action).to.include({ type: 'redirect_to_url' });
    expect(tx.next_action.url).to.match(/\/_sandbox\/challenge\/pi_/);
    expect(Date.parse(tx.next_action.expires_at)).to.be.greaterThan(Date.now());
    expect(tx.timeline[0].three_ds).to.include({ requested: false, status: 'challenged' });
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
    const tx = await challenged(tenant, CHALLENGE);
    const landed = await completeChallenge(tx.next_action.url, 'authenticated');
    expect(landed).to.equal(`${RETURN_URL}&transaction_id=${tx.id}`);
    const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(read).to.include({ status: 'authorized', next_action: null, amount_authorized: 1500 });
    const [attempt] = await attemptsOf(tenant, tx.id);
    expect(attempt).to.include({ status: 'success', three_ds_status: 'authenticated' });
    expect(attempt.three_ds).to.deep.equal({
      requested: false,
      status: 'authenticated',
      version: '2.2.0',
      eci: '05',
      liability_shift: true,
    });
  });

  it('a failed challenge fails the charge authentication_failed without trying another connector', async () => {
    await cascade(tenant, ['provider_a', 'provider_a'], { webhooks: false });
    const res = await charge(tenant, cardCharge(await cardToken(tenant, CHALLENGE), { return_url: RETURN_URL }));
    const tx = res.body.data;
    await completeChallenge(tx.next_action.url, 'failed');
    const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(read).to.include({ status: 'failed', failure_code: 'authentication_failed' });
    const attempts = await attemptsOf(tenant, tx.id);
    expect(attempts).to.have.length(1);
    expect(attempts[0].three_ds).to.include({ status: 'failed', liability_shift: false });
  });

  it('a challenge passed and then declined by the issuer fails with the decline, the attempt authenticated', async () => {
    const tx = await challenged(tenant, CHALLENGE_THEN_DECLINE);
    await completeChallenge(tx.next_action.url, 'authenticated');
    const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(read.status).to.equal('failed');
    expect(read.failure_code).to.not.equal('authentication_failed');
    const [attempt] = await attemptsOf(tenant, tx.id);
    expect(attempt.three_ds).to.include({ status: 'authenticated', liability_shift: true });
  });

  it('refuses a return_url that is not https (or http on localhost): 400 on return_url', async () => {
    await cascade(tenant, ['provider_a'], { webhooks: false });
    const res = await charge(
      tenant,
      cardCharge(await cardToken(tenant, CHALLENGE), { return_url: 'http://shop.example/thanks' }),
    );
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error.details).to.have.property('return_url');
  });
});
