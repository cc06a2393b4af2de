/** POST /sessions and POST /sessions/:id/refresh: the browser session of Document 3 (camelCase, public keys). */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { api } from '../helpers/http';
import { createTenant, addMerchant, customerInput, type Tenant } from '../helpers/factories';
import { createOffer } from '../helpers/catalog';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import { newSession } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import { cardConnector, openSession, publicHeaders } from '../helpers/vault';

const SESSION_KEYS = [
  'sessionId',
  'expiresAt',
  'merchant',
  'capabilities',
  'settings',
  'sdk',
  'installmentsSupported',
  'installmentOptions',
  'encryption',
];

describe('POST /api/v1/sessions', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
  });

  it('returns 201 with the browser session in camelCase, bare, expiring in 30 minutes', async () => {
    const res = await api.post('/sessions', {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { sdkVersion: '1.0.0', metadata: { page: 'cart' } },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.have.all.keys(SESSION_KEYS);
    expect(res.body.sessionId).to.match(/^bs_[0-9A-Za-z]+$/);
    expect(Date.parse(res.body.expiresAt) - Date.now()).to.be.within(29 * 60_000, 30 * 60_000 + 1000);
    expect(res.body.merchant).to.deep.equal({
      id: tenant.merchant_id,
      name: res.body.merchant.name,
      organizationId: tenant.organization_id,
    });
    expect(res.body.settings).to.deep.equal({
      allowedCardBrands: ['visa', 'mastercard', 'amex', 'discover', 'diners', 'jcb'],
      requireCvc: true,
      requireCardholderName: false,
      collectBillingAddress: false,
    });
    expect(res.body.encryption).to.include({ alg: 'ECDH-ES', enc: 'A256GCM', kid: stack().config.vault.kid });
    expect(res.body.encryption.jwk).to.deep.equal({ ...stack().config.vault.publicJwk });
  });

  it('derives capabilities from the active connectors (provider_a: cards and wallets, no pix, no installments)', async () => {
    const session = await openSession(tenant);
    expect(session.capabilities).to.deep.equal({ cards: true, pix: false, applePay: true, googlePay: true });
    expect(session.installmentsSupported).to.equal(false);
    expect(session.installmentOptions).to.deep.equal({
      credit_card: null,
      debit_card: null,
      pix: null,
      boleto: null,
      wallet: null,
    });
  });

  it('offers pix and credit-card installments when a connector supports them, and narrows brands by config.card_brands', async () => {
    const other = await createTenant();
    await cardConnector(other, 'provider_b', { config: { card_brands: ['visa', 'elo'] } });
    const session = await openSession(other);
    expect(session.capabilities).to.deep.equal({ cards: true, pix: true, applePay: false, googlePay: false });
    expect(session.settings.allowedCardBrands).to.deep.equal(['visa', 'elo']);
    expect(session.installmentsSupported).to.equal(true);
    expect(session.installmentOptions.credit_card).to.deep.equal({ min: 1, max: 12 });
  });

  it('surfaces no card brand and no capability without an active connector', async () => {
    const bare = await createTenant();
    const session = await openSession(bare);
    expect(session.capabilities).to.deep.equal({ cards: false, pix: false, applePay: false, googlePay: false });
    expect(session.settings.allowedCardBrands).to.deep.equal([]);
  });

  it('publishes sdk.sriHash as the sha384 SRI hash of the SDK file served at /sdk/v1/switchyard.js', async () => {
    const session = await openSession(tenant);
    const sdk = await fetch(`${stack().url}/sdk/v1/switchyard.js`);
    const body = Buffer.from(await sdk.arrayBuffer());
    expect(session.sdk.sriHash).to.equal(`sha384-${createHash('sha384').update(body).digest('base64')}`);
    expect(session.sdk.sriExpiresAt).to.equal(session.expiresAt);
  });

  it("binds a checkout session of the merchant, and refuses another merchant's checkout with 400", async () => {
    const { session: checkout } = await newSession(tenant);
    const res = await api.post('/sessions', {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { checkoutSessionId: checkout.id },
    });
    expect(res.status, res.text).to.equal(201);
    const stranger = await createTenant();
    const { session: foreign } = await newSession(stranger);
    const refused = await api.post('/sessions', {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { checkoutSessionId: foreign.id },
    });
    expectFieldErrors(refused, ['checkoutSessionId']);
  });

  it('lets an organization public key open a session for a checkout of its organization, acting for that merchant', async () => {
    const second = await addMerchant(tenant);
    const { offer } = await createOffer(second.merchantId);
    const created = await api.post('/checkout-sessions', {
      key: second.merchantKey,
      body: { offer_id: offer.id, customer: customerInput() },
    });
    expect(created.status, created.text).to.equal(201);
    const session = await openSession(
      tenant,
      { checkoutSessionId: created.body.data.id },
      tenant.organization_public_key,
    );
    expect(session.merchant.id).to.equal(second.merchantId);
  });

  it('refuses an organization public key without checkoutSessionId with 403 (it names no merchant)', async () => {
    const res = await api.post('/sessions', { headers: publicHeaders(tenant.organization_public_key), body: {} });
    expectError(res, 403, 'authorization_error');
  });

  it('rejects unknown fields and malformed values with 400', async () => {
    const res = await api.post('/sessions', {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { sdkVersion: 7, merchantId: tenant.merchant_id, checkoutSessionId: 'nope' },
    });
    expectFieldErrors(res, ['sdkVersion', 'merchantId', 'checkoutSessionId']);
  });
});

describe('POST /api/v1/sessions/:sessionId/refresh', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  const setStored = (id: string, columns: { expires_at?: Date; created_at?: Date }) =>
    stack()
      .orm.em.fork()
      .execute(
        `update browser_sessions set ${Object.keys(columns)
          .map((c) => `${c} = ?`)
          .join(', ')} where id = ?`,
        [...Object.values(columns), id],
      );

  it('returns 200 with the session and a new expiresAt 30 minutes ahead', async () => {
    const session = await openSession(tenant);
    await setStored(session.sessionId, { expires_at: new Date(Date.now() + 60_000) });
    const res = await api.post(`/sessions/${session.sessionId}/refresh`, {
      headers: publicHeaders(tenant.merchant_public_key),
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(SESSION_KEYS);
    expect(Date.parse(res.body.expiresAt) - Date.now()).to.be.above(29 * 60_000);
  });

  it('never extends a session beyond 24 hours after it was opened', async () => {
    const session = await openSession(tenant);
    const opened = new Date(Date.now() - 24 * 3600_000 + 5 * 60_000);
    await setStored(session.sessionId, { created_at: opened });
    const res = await api.post(`/sessions/${session.sessionId}/refresh`, {
      headers: publicHeaders(tenant.merchant_public_key),
    });
    expect(res.status, res.text).to.equal(200);
    expect(Date.parse(res.body.expiresAt)).to.equal(opened.getTime() + 24 * 3600_000);
  });

  it('refuses an expired session with 422 BROWSER_SESSION_EXPIRED', async () => {
    const session = await openSession(tenant);
    await setStored(session.sessionId, { expires_at: new Date(Date.now() - 1000) });
    const res = await api.post(`/sessions/${session.sessionId}/refresh`, {
      headers: publicHeaders(tenant.merchant_public_key),
    });
    expectError(res, 422, 'business_rule_error', 'BROWSER_SESSION_EXPIRED');
  });

  it("answers 404 for another merchant's session or an unknown id", async () => {
    const session = await openSession(tenant);
    const stranger = await createTenant();
    expectError(
      await api.post(`/sessions/${session.sessionId}/refresh`, {
        headers: publicHeaders(stranger.merchant_public_key),
      }),
      404,
      'not_found_error',
    );
    expectError(
      await api.post('/sessions/bs_unknown/refresh', { headers: publicHeaders(tenant.merchant_public_key) }),
      404,
      'not_found_error',
    );
  });

  it('refuses a body', async () => {
    const session = await openSession(tenant);
    const res = await api.post(`/sessions/${session.sessionId}/refresh`, {
      headers: publicHeaders(tenant.merchant_public_key),
      body: { extend: true },
    });
    expectError(res, 400, 'validation_error');
  });
});
