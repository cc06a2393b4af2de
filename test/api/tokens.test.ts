/** POST /tokens (public key + X-Session-Id) and GET /tokens/:tokenId (secret keys): Document 3's Token. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import { createSession, newSession, sellableOffer } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import {
  CARDS,
  cardConnector,
  mintToken,
  NEXT_YEAR,
  openSession,
  postToken,
  publicHeaders,
  tokenBody,
} from '../helpers/vault';

const TOKEN_KEYS = [
  'tokenId',
  'merchant_id',
  'purpose',
  'last4',
  'card_brand',
  'exp_month',
  'exp_year',
  'status',
  'expires_at',
  'created_at',
];

const row = async (id: string) =>
  (await stack().orm.em.fork().execute('select * from card_tokens where id = ?', [id]))[0];

describe('POST /api/v1/tokens', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
  });

  it('returns 201 with only the non-sensitive parts of the card: exp_month and exp_year as strings, status active, 15 minutes', async () => {
    const session = await openSession(tenant);
    const res = await postToken(tenant, session, tokenBody(session, { ...CARDS.visa, expMonth: 3 }));
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.have.all.keys(TOKEN_KEYS);
    expect(res.body).to.include({
      merchant_id: tenant.merchant_id,
      purpose: 'one_time',
      last4: '4242',
      card_brand: 'visa',
      exp_month: '03',
      exp_year: String(NEXT_YEAR),
      status: 'active',
    });
    expect(res.body.tokenId).to.match(/^tok_[0-9A-Za-z]+$/);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).to.equal(15 * 60_000);
    expect(res.text).to.not.include(CARDS.visa.number).and.not.include('42424242');
  });

  it('stores the PAN and CVC only encrypted, and keeps an 8-digit BIN for a 16-digit card', async () => {
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session, { ...CARDS.visa, name: 'Ada Lovelace' });
    const stored = await row(token.tokenId);
    expect(stored.bin).to.equal('42424242');
    expect(stored.pan_encrypted).to.match(/^v1\./);
    expect(stored.holder_name_encrypted).to.match(/^v1\./);
    expect(JSON.stringify(stored)).to.not.include(CARDS.visa.number).and.not.include('Ada Lovelace');
    const [cvc] = await stack()
      .orm.em.fork()
      .execute('select * from card_token_cvcs where card_token_id = ?', [token.tokenId]);
    expect(cvc.cvc_encrypted).to.match(/^v1\./);
  });

  it('accepts an amex card with a 4-digit CID', async () => {
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session, CARDS.amex);
    expect(token).to.include({ card_brand: 'amex', last4: '0005' });
  });

  it('mints an instrument_enrollment token when purpose says so', async () => {
    const session = await openSession(tenant);
    expect((await mintToken(tenant, session, CARDS.visa, { purpose: 'instrument_enrollment' })).purpose).to.equal(
      'instrument_enrollment',
    );
  });

  it('ignores save_card outside a checkout session', async () => {
    const session = await openSession(tenant);
    expect((await mintToken(tenant, session, CARDS.visa, { save_card: true })).purpose).to.equal('one_time');
  });

  it('mints an instrument_enrollment token for save_card inside a one-time checkout, one_time without it', async () => {
    const { offer } = await sellableOffer(tenant, { billingCycle: 'none' });
    const checkout = await createSession(tenant, { offer_id: offer.id });
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    expect((await mintToken(tenant, session, CARDS.visa, { save_card: true })).purpose).to.equal(
      'instrument_enrollment',
    );
    expect((await mintToken(tenant, session, CARDS.visa, {})).purpose).to.equal('one_time');
  });

  it('always enrols for a checkout of a recurring offer, whatever purpose and save_card say', async () => {
    const { session: checkout } = await newSession(tenant); // the fixture offer bills monthly
    const session = await openSession(tenant, { checkoutSessionId: checkout.id });
    expect((await mintToken(tenant, session, CARDS.visa, { purpose: 'one_time', save_card: false })).purpose).to.equal(
      'instrument_enrollment',
    );
  });

  it("requires the X-Session-Id header (400) and refuses another merchant's session (400)", async () => {
    const session = await openSession(tenant);
    const body = tokenBody(session, CARDS.visa);
    expectFieldErrors(await api.post('/tokens', { headers: publicHeaders(tenant.merchant_public_key), body }), [
      'X-Session-Id',
    ]);
    const stranger = await createTenant();
    expectFieldErrors(
      await api.post('/tokens', { headers: publicHeaders(stranger.merchant_public_key, session.sessionId), body }),
      ['X-Session-Id'],
    );
  });

  it('refuses an expired browser session with 422 BROWSER_SESSION_EXPIRED', async () => {
    const session = await openSession(tenant);
    await stack()
      .orm.em.fork()
      .execute('update browser_sessions set expires_at = ? where id = ?', [
        new Date(Date.now() - 1000),
        session.sessionId,
      ]);
    expectError(
      await postToken(tenant, session, tokenBody(session, CARDS.visa)),
      422,
      'business_rule_error',
      'BROWSER_SESSION_EXPIRED',
    );
  });

  it('rejects missing parts, unknown fields and a bad purpose with 400 naming them', async () => {
    const session = await openSession(tenant);
    const body = tokenBody(session, CARDS.visa, { purpose: 'forever', extra: 1 }) as any;
    delete body.encryptedCard.cvc;
    delete body.metadata.bin;
    expectFieldErrors(await postToken(tenant, session, body), [
      'encryptedCard.cvc',
      'metadata.bin',
      'purpose',
      'extra',
    ]);
  });
});

describe('GET /api/v1/tokens/:tokenId', () => {
  let tenant: Tenant;
  let token: any;
  before(async () => {
    tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
    token = await mintToken(tenant, await openSession(tenant));
  });

  it('returns 200 with the token for the merchant secret key', async () => {
    const res = await api.get(`/tokens/${token.tokenId}`, { key: tenant.merchant_secret_key });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal(token);
  });

  it('returns the token to an organization key naming the merchant, and 403 without merchant_id', async () => {
    const res = await api.get(`/tokens/${token.tokenId}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(res.status, res.text).to.equal(200);
    expectError(
      await api.get(`/tokens/${token.tokenId}`, { key: tenant.organization_secret_key }),
      403,
      'authorization_error',
    );
  });

  it('reads as expired once past expires_at', async () => {
    const minted = await mintToken(tenant, await openSession(tenant));
    await stack()
      .orm.em.fork()
      .execute('update card_tokens set expires_at = ? where id = ?', [new Date(Date.now() - 1000), minted.tokenId]);
    const res = await api.get(`/tokens/${minted.tokenId}`, { key: tenant.merchant_secret_key });
    expect(res.body.status).to.equal('expired');
  });

  it("answers 404 for another merchant's token or an unknown id", async () => {
    const stranger = await createTenant();
    expectError(
      await api.get(`/tokens/${token.tokenId}`, { key: stranger.merchant_secret_key }),
      404,
      'not_found_error',
    );
    expectError(await api.get('/tokens/tok_unknown', { key: tenant.merchant_secret_key }), 404, 'not_found_error');
  });

  it('refuses a public key (403) and a key without instruments:read (403)', async () => {
    expectError(
      await api.get(`/tokens/${token.tokenId}`, { key: tenant.merchant_public_key }),
      403,
      'authorization_error',
    );
    expectError(
      await api.get(`/tokens/${token.tokenId}`, { headers: publicHeaders(tenant.merchant_public_key) }),
      401,
      'authentication_error',
    );
    const key = await keyWithScopes(tenant, ['customers:read']);
    expectError(await api.get(`/tokens/${token.tokenId}`, { key }), 403, 'authorization_error');
  });
});
