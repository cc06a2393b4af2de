/** POST /merchants/:merchant_id/payment-instruments: a saved card from a single-use enrolment token. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import {
  CARDS,
  cardConnector,
  createCustomer,
  instrumentsPath,
  mintToken,
  NEXT_YEAR,
  openSession,
  type CardInput,
} from '../helpers/vault';

const INSTRUMENT_KEYS = [
  'id',
  'merchant_id',
  'customer_id',
  'instrument_type',
  'card_brand',
  'card_type',
  'last4',
  'bin',
  'issuer_country',
  'exp_month',
  'exp_year',
  'status',
  'created_at',
];

describe('POST /api/v1/merchants/:merchant_id/payment-instruments', () => {
  let tenant: Tenant;
  let customerId: string;
  const create = (
    body: Record<string, unknown>,
    key = tenant.merchant_secret_key,
    headers: Record<string, string> = {},
  ) => api.post(instrumentsPath(tenant.merchant_id), { key, body, headers });
  const enrolmentToken = async (card: CardInput & { brand?: string } = CARDS.visa) =>
    (await mintToken(tenant, await openSession(tenant), card)).tokenId as string;

  before(async () => {
    tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
    customerId = await createCustomer(tenant);
  });

  it('returns 200 with the bare instrument and deduplicated false, and consumes the token', async () => {
    const tokenId = await enrolmentToken(CARDS.mastercard);
    const res = await create({ customer_id: customerId, card_ciphertext_id: tokenId, metadata: { source: 'test' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys([...INSTRUMENT_KEYS, 'deduplicated']);
    expect(res.body).to.include({
      merchant_id: tenant.merchant_id,
      customer_id: customerId,
      instrument_type: 'card',
      card_brand: 'mastercard',
      card_type: null,
      last4: '4444',
      bin: '55555555',
      issuer_country: null,
      exp_month: 12,
      exp_year: NEXT_YEAR,
      status: 'active',
      deduplicated: false,
    });
    expect(res.body.id).to.match(/^pi_[0-9A-Za-z]+$/);
    const token = await api.get(`/tokens/${tokenId}`, { key: tenant.merchant_secret_key });
    expect(token.body.status).to.equal('used');
    const [row] = await stack().orm.em.fork().execute('select pan_encrypted from card_tokens where id = ?', [tokenId]);
    expect(row.pan_encrypted).to.equal(null);
    const cvcs = await stack()
      .orm.em.fork()
      .execute('select 1 from card_token_cvcs where card_token_id = ?', [tokenId]);
    expect(cvcs).to.have.length(0);
  });

  it('returns the existing instrument with deduplicated true for the same card and customer', async () => {
    const first = await create({ customer_id: customerId, card_ciphertext_id: await enrolmentToken() });
    const again = await create({ customer_id: customerId, card_ciphertext_id: await enrolmentToken() });
    expect(again.status, again.text).to.equal(200);
    expect(again.body.id).to.equal(first.body.id);
    expect(again.body.deduplicated).to.equal(true);
  });

  it('creates a separate instrument for the same card on another customer', async () => {
    const other = await createCustomer(tenant);
    const mine = await create({ customer_id: customerId, card_ciphertext_id: await enrolmentToken() });
    const theirs = await create({ customer_id: other, card_ciphertext_id: await enrolmentToken() });
    expect(theirs.body.id).to.not.equal(mine.body.id);
    expect(theirs.body.deduplicated).to.equal(false);
  });

  it('refuses a token used once already with 409 TOKEN_ALREADY_USED', async () => {
    const tokenId = await enrolmentToken(CARDS.amex);
    expect((await create({ customer_id: customerId, card_ciphertext_id: tokenId })).status).to.equal(200);
    expectError(
      await create({ customer_id: customerId, card_ciphertext_id: tokenId }),
      409,
      'conflict_error',
      'TOKEN_ALREADY_USED',
    );
  });

  it('refuses an expired token with 422 TOKEN_EXPIRED, and its sealed card data is wiped', async () => {
    const tokenId = await enrolmentToken();
    await stack()
      .orm.em.fork()
      .execute('update card_tokens set expires_at = ? where id = ?', [new Date(Date.now() - 1000), tokenId]);
    expectError(
      await create({ customer_id: customerId, card_ciphertext_id: tokenId }),
      422,
      'business_rule_error',
      'TOKEN_EXPIRED',
    );
    const [row] = await stack()
      .orm.em.fork()
      .execute('select status, pan_encrypted from card_tokens where id = ?', [tokenId]);
    expect(row).to.deep.equal({ status: 'expired', pan_encrypted: null });
  });

  it('refuses a one_time token with 400 naming card_ciphertext_id', async () => {
    const token = await mintToken(tenant, await openSession(tenant), CARDS.visa, { purpose: 'one_time' });
    expectFieldErrors(await create({ customer_id: customerId, card_ciphertext_id: token.tokenId }), [
      'card_ciphertext_id',
    ]);
  });

  it("refuses another merchant's customer or token, and unknown ones, with 400", async () => {
    const stranger = await createTenant();
    await cardConnector(stranger, 'provider_a');
    const foreignCustomer = await createCustomer(stranger);
    const foreignToken = (await mintToken(stranger, await openSession(stranger))).tokenId;
    expectFieldErrors(await create({ customer_id: foreignCustomer, card_ciphertext_id: await enrolmentToken() }), [
      'customer_id',
    ]);
    expectFieldErrors(await create({ customer_id: customerId, card_ciphertext_id: foreignToken }), [
      'card_ciphertext_id',
    ]);
    expectFieldErrors(await create({ customer_id: customerId, card_ciphertext_id: 'tok_unknown' }), [
      'card_ciphertext_id',
    ]);
  });

  it('rejects missing fields, unknown fields and malformed ids with 400', async () => {
    // card_ciphertext_id is required unless a test payment method is named: its absence is reported once the body
    // is otherwise valid (test/api/test-payment-methods.test.ts).
    expectFieldErrors(await create({ card_number: '4242424242424242' }), ['customer_id', 'card_number']);
    expectFieldErrors(await create({ customer_id: customerId }), ['card_ciphertext_id']);
    expectFieldErrors(await create({ customer_id: 'pi_x', card_ciphertext_id: 'cust_x' }), [
      'customer_id',
      'card_ciphertext_id',
    ]);
  });

  it('replays the first response for the same Idempotency-Key without consuming anything else', async () => {
    const key = `enrol-${Math.random()}`;
    const token = await enrolmentToken(CARDS.amex);
    const a = await create({ customer_id: customerId, card_ciphertext_id: token }, tenant.merchant_secret_key, {
      'idempotency-key': key,
    });
    const b = await create({ customer_id: customerId, card_ciphertext_id: token }, tenant.merchant_secret_key, {
      'idempotency-key': key,
    });
    expect(a.status).to.equal(200);
    expect(b.status).to.equal(200);
    expect(b.headers.get('idempotent-replayed')).to.equal('true');
    expect(b.text).to.equal(a.text);
  });

  it("accepts an organization key for a merchant of its organization in the path, and 403 for another organization's", async () => {
    const res = await api.post(instrumentsPath(tenant.merchant_id), {
      key: tenant.organization_secret_key,
      body: { customer_id: customerId, card_ciphertext_id: await enrolmentToken() },
    });
    expect(res.status, res.text).to.equal(200);
    const stranger = await createTenant();
    const refused = await api.post(instrumentsPath(stranger.merchant_id), {
      key: tenant.organization_secret_key,
      body: { customer_id: customerId, card_ciphertext_id: 'tok_x' },
    });
    expectError(refused, 403, 'authorization_error');
  });

  it("refuses a merchant key on another merchant's path, a public key, and a key without instruments:write (403)", async () => {
    const second = await addMerchant(tenant);
    const body = { customer_id: customerId, card_ciphertext_id: 'tok_x' };
    expectError(
      await api.post(instrumentsPath(second.merchantId), { key: tenant.merchant_secret_key, body }),
      403,
      'authorization_error',
    );
    expectError(await create(body, tenant.merchant_public_key), 403, 'authorization_error');
    expectError(await create(body, await keyWithScopes(tenant, ['instruments:read'])), 403, 'authorization_error');
  });
});
