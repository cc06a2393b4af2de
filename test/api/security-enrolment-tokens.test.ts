/**
 * Browser card enrolment outside a checkout needs an enrolment token minted by the merchant's server: the
 * public key, a browser session and a customer id are public or attacker-made, so they alone must
 * not buy a zero-amount verification. A checkout-bound session needs none (test/api/session-enrolment.test.ts).
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import { rows } from '../helpers/db';
import {
  CARDS,
  cardConnector,
  createCustomer,
  enrolmentToken,
  mintToken,
  openSession,
  publicHeaders,
  type SessionData,
} from '../helpers/vault';

describe("Enrolment tokens: browser card enrolment outside a checkout needs a token from the merchant's server", () => {
  let tenant: Tenant;
  let customerId: string;
  const enrol = (session: SessionData, body: Record<string, unknown>) =>
    api.post(`/sessions/${session.sessionId}/payment-instruments`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { currency: 'USD', ...body },
    });
  const cardSetups = async (customer: string) =>
    rows(`select id from orders where customer_id = ? and order_type = 'card_setup'`, [customer]);

  before(async () => {
    tenant = await createTenant();
    const connector = await cardConnector(tenant, 'provider_a');
    const profile = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Cards', is_active: true, payment_method: '*', default_merchant_connector_id: connector.id },
    });
    expect(profile.status, profile.text).to.equal(201);
    customerId = await createCustomer(tenant);
  });

  it('a session without a checkout cannot verify a card with only a customerId: 400 enrolmentToken, no verification', async () => {
    const customer = await createCustomer(tenant);
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session, CARDS.visa);
    expectFieldErrors(await enrol(session, { tokenId: token.tokenId, customerId: customer }), ['enrolmentToken']);
    expect(await cardSetups(customer)).to.deep.equal([]);
    expect((await rows('select status from card_tokens where id = ?', [token.tokenId]))[0].status).to.equal('active');
  });

  it("mints a token for the merchant's own customer: 201 {enrolment_token, customer_id, expires_at}, stored only hashed", async () => {
    const before = Date.now();
    const res = await api.post(`/merchants/${tenant.merchant_id}/enrolment-tokens`, {
      key: tenant.merchant_secret_key,
      body: { customer_id: customerId },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.have.all.keys(['enrolment_token', 'merchant_id', 'customer_id', 'expires_at']);
    expect(res.body).to.include({ merchant_id: tenant.merchant_id, customer_id: customerId });
    expect(res.body.enrolment_token).to.match(/^enr_[0-9A-Za-z]{32}$/);
    const lifetime = Date.parse(res.body.expires_at) - before;
    expect(lifetime)
      .to.be.greaterThan(14 * 60_000)
      .and.at.most(16 * 60_000);
    const stored = await rows('select * from enrolment_tokens where customer_id = ?', [customerId]);
    expect(JSON.stringify(stored)).to.not.include(res.body.enrolment_token);
  });

  it("refuses minting for another merchant's customer (400) and with a public key (401)", async () => {
    const stranger = await createTenant();
    const foreign = await api.post(`/merchants/${tenant.merchant_id}/enrolment-tokens`, {
      key: tenant.merchant_secret_key,
      body: { customer_id: await createCustomer(stranger) },
    });
    expectFieldErrors(foreign, ['customer_id']);
    const publicKey = await api.post(`/merchants/${tenant.merchant_id}/enrolment-tokens`, {
      key: tenant.merchant_public_key,
      body: { customer_id: customerId },
    });
    expect(publicKey.status, publicKey.text).to.be.oneOf([401, 403]);
  });

  it('saves the card for the customer the token names; a different customerId from the browser is 400', async () => {
    const customer = await createCustomer(tenant);
    const grant = await enrolmentToken(tenant, customer);
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session, CARDS.visa);
    expectFieldErrors(await enrol(session, { tokenId: token.tokenId, customerId, enrolmentToken: grant }), [
      'customerId',
    ]);
    // The refused request spent nothing: the same enrolment token and card token still work.
    const res = await enrol(session, { tokenId: token.tokenId, enrolmentToken: grant });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.verified).to.equal(true);
    const [saved] = await rows('select customer_id from payment_instruments where id = ?', [
      res.body.paymentInstrumentId,
    ]);
    expect(saved.customer_id).to.equal(customer);
  });

  it('an enrolment token buys one verification: a second card with it is 403 ENROLMENT_TOKEN_INVALID', async () => {
    const grant = await enrolmentToken(tenant, customerId);
    const session = await openSession(tenant);
    const first = await enrol(session, {
      tokenId: (await mintToken(tenant, session, CARDS.stolen)).tokenId,
      enrolmentToken: grant,
    });
    expect(first.status, first.text).to.equal(201);
    expect(first.body.status).to.equal('declined');
    const second = await mintToken(tenant, session, CARDS.doNotHonor);
    expectError(
      await enrol(session, { tokenId: second.tokenId, enrolmentToken: grant }),
      403,
      'authorization_error',
      'ENROLMENT_TOKEN_INVALID',
    );
    expect((await rows('select status from card_tokens where id = ?', [second.tokenId]))[0].status).to.equal('active');
  });

  it("refuses a made-up, an expired and another merchant's enrolment token with 403 ENROLMENT_TOKEN_INVALID", async () => {
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session, CARDS.visa);
    const expired = await enrolmentToken(tenant, customerId);
    await rows(`update enrolment_tokens set expires_at = now() - interval '1 second' where customer_id = ?`, [
      customerId,
    ]);
    const stranger = await createTenant();
    const foreign = await enrolmentToken(stranger, await createCustomer(stranger));
    for (const grant of [`enr_${'x'.repeat(32)}`, expired, foreign]) {
      expectError(
        await enrol(session, { tokenId: token.tokenId, enrolmentToken: grant }),
        403,
        'authorization_error',
        'ENROLMENT_TOKEN_INVALID',
      );
    }
    expect((await rows('select status from card_tokens where id = ?', [token.tokenId]))[0].status).to.equal('active');
  });
});
