/** GET, PATCH and DELETE on /merchants/:merchant_id/payment-instruments: filters, the status rules, 404s. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { assertChargeable } from '../../api/modules/payment-instruments/instrument-status.rules';
import { ApiError } from '../../domain/platform/errors';
import { PaymentInstrumentSchema } from '../../db/entities';
import { CARDS, cardConnector, createCustomer, instrumentsPath, saveCard } from '../helpers/vault';

const setStored = (id: string, columns: Record<string, unknown>) =>
  stack()
    .orm.em.fork()
    .execute(
      `update payment_instruments set ${Object.keys(columns)
        .map((c) => `${c} = ?`)
        .join(', ')} where id = ?`,
      [...Object.values(columns), id],
    );

describe('GET /api/v1/merchants/:merchant_id/payment-instruments', () => {
  let tenant: Tenant;
  let ada: string;
  let bob: string;
  let visa: any;
  let amex: any;
  let master: any;
  const list = (query: Record<string, any> = {}, key = tenant.merchant_secret_key) =>
    api.get(instrumentsPath(tenant.merchant_id), { key, query });
  const ids = async (query: Record<string, any>) =>
    expectWrapped(await list(query), 200, { list: true }).map((item: any) => item.id);

  before(async () => {
    tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
    ada = await createCustomer(tenant);
    bob = await createCustomer(tenant);
    visa = await saveCard(tenant, ada, CARDS.visa);
    amex = await saveCard(tenant, ada, CARDS.amex);
    master = await saveCard(tenant, bob, CARDS.mastercard);
    await setStored(master.id, { card_type: 'debit', issuer_country: 'BR' });
    await setStored(visa.id, { card_type: 'credit', issuer_country: 'US' });
  });

  it("lists the merchant's instruments newest first in the wrapped envelope with meta.pagination", async () => {
    const data = expectWrapped(await list(), 200, { list: true });
    expect(data.map((item: any) => item.id)).to.deep.equal([master.id, amex.id, visa.id]);
    expect(data[0]).to.not.have.property('deduplicated');
    const page = await list({ limit: 2, page: 2 });
    expect(page.body.meta.pagination).to.deep.equal({
      page: 2,
      limit: 2,
      total: 3,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
  });

  it('filters by customer_id, card_brand, card_type, last4, bin (6 or 8 digits) and issuer_country', async () => {
    expect(await ids({ customer_id: ada })).to.deep.equal([amex.id, visa.id]);
    expect(await ids({ card_brand: 'AMEX' })).to.deep.equal([amex.id]);
    expect(await ids({ card_type: 'debit' })).to.deep.equal([master.id]);
    expect(await ids({ last4: '4242' })).to.deep.equal([visa.id]);
    expect(await ids({ bin: '424242' })).to.deep.equal([visa.id]);
    expect(await ids({ bin: '55555555' })).to.deep.equal([master.id]);
    expect(await ids({ issuer_country: 'US' })).to.deep.equal([visa.id]);
    expect(await ids({ customer_id: ada, card_brand: 'mastercard' })).to.deep.equal([]);
  });

  it('filters by status (repeated or comma-separated), reading a card past its expiry month as expired', async () => {
    await setStored(amex.id, { status: 'revoked' });
    await setStored(master.id, { card_expires_at: new Date(Date.now() - 1000) });
    try {
      expect(await ids({ status: 'active' })).to.deep.equal([visa.id]);
      expect(await ids({ status: 'expired' })).to.deep.equal([master.id]);
      expect(await ids({ status: 'revoked,expired' })).to.deep.equal([master.id, amex.id]);
      expect(await ids({ status: ['revoked', 'active'] })).to.deep.equal([amex.id, visa.id]);
      const item = expectWrapped(await list({ status: 'expired' }), 200, { list: true })[0];
      expect(item.status).to.equal('expired');
    } finally {
      await setStored(amex.id, { status: 'active' });
      await setStored(master.id, { card_expires_at: new Date(Date.UTC(new Date().getUTCFullYear() + 3, 0, 1)) });
    }
  });

  it('rejects unknown filters, unknown statuses and malformed values with 400', async () => {
    expectFieldErrors(
      await list({ status: 'lost', last4: '12', card_type: 'prepaid', issuer_country: 'XX', pan: '4242' }),
      ['status', 'last4', 'card_type', 'issuer_country', 'pan'],
    );
  });

  it("never lists another merchant's instruments; an organization key must name the merchant in the path", async () => {
    const stranger = await createTenant();
    const res = await api.get(instrumentsPath(stranger.merchant_id), { key: stranger.merchant_secret_key });
    expect(expectWrapped(res, 200, { list: true })).to.deep.equal([]);
    expect(expectWrapped(await list({}, tenant.organization_secret_key), 200, { list: true })).to.have.length(3);
    expectError(
      await api.get(instrumentsPath(stranger.merchant_id), { key: tenant.organization_secret_key }),
      403,
      'authorization_error',
    );
  });

  it('needs instruments:read (403 without it)', async () => {
    expectError(await list({}, await keyWithScopes(tenant, ['instruments:write'])), 403, 'authorization_error');
  });

  it('GET by id returns the wrapped instrument; unknown or foreign ids are 404 PAYMENT_INSTRUMENT_NOT_FOUND', async () => {
    const res = await api.get(`${instrumentsPath(tenant.merchant_id)}/${visa.id}`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(res, 200)).to.include({ id: visa.id, last4: '4242' });
    const stranger = await createTenant();
    expectError(
      await api.get(`${instrumentsPath(stranger.merchant_id)}/${visa.id}`, { key: stranger.merchant_secret_key }),
      404,
      'not_found_error',
      'PAYMENT_INSTRUMENT_NOT_FOUND',
    );
  });
});

describe('PATCH /api/v1/merchants/:merchant_id/payment-instruments/:payment_instrument_id', () => {
  let tenant: Tenant;
  let customerId: string;
  const patch = (id: string, body: unknown, key = tenant.merchant_secret_key) =>
    api.patch(`${instrumentsPath(tenant.merchant_id)}/${id}`, { key, body });

  before(async () => {
    tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
    customerId = await createCustomer(tenant);
  });

  it('moves active → expired → active and answers 200 with the wrapped instrument', async () => {
    const card = await saveCard(tenant, customerId, CARDS.visa);
    expect(expectWrapped(await patch(card.id, { status: 'expired' }), 200).status).to.equal('expired');
    expect(expectWrapped(await patch(card.id, { status: 'active' }), 200).status).to.equal('active');
    expect(expectWrapped(await patch(card.id, { status: 'active' }), 200).status).to.equal('active');
  });

  it('makes revoked final: reactivating or expiring a revoked instrument is 422 business_rule_error', async () => {
    const card = await saveCard(tenant, customerId, CARDS.mastercard);
    expect(expectWrapped(await patch(card.id, { status: 'revoked' }), 200).status).to.equal('revoked');
    expectError(await patch(card.id, { status: 'active' }), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
    expectError(await patch(card.id, { status: 'expired' }), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
  });

  it('refuses to reactivate a card whose expiry month has passed (422)', async () => {
    const card = await saveCard(tenant, customerId, CARDS.amex);
    await setStored(card.id, { card_expires_at: new Date(Date.now() - 1000) });
    expectError(await patch(card.id, { status: 'active' }), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
  });

  it('takes only status: other fields, a missing status and unknown values are 400', async () => {
    const card = await saveCard(tenant, customerId, CARDS.visa);
    expectFieldErrors(await patch(card.id, { status: 'blocked', last4: '0000' }), ['status', 'last4']);
    expectFieldErrors(await patch(card.id, {}), ['status']);
  });

  it("answers 404 PAYMENT_INSTRUMENT_NOT_FOUND for unknown ids and another merchant's instrument", async () => {
    const card = await saveCard(tenant, customerId, CARDS.visa);
    expectError(
      await patch('pi_unknown', { status: 'expired' }),
      404,
      'not_found_error',
      'PAYMENT_INSTRUMENT_NOT_FOUND',
    );
    const stranger = await createTenant();
    const res = await api.patch(`${instrumentsPath(stranger.merchant_id)}/${card.id}`, {
      key: stranger.merchant_secret_key,
      body: { status: 'revoked' },
    });
    expectError(res, 404, 'not_found_error', 'PAYMENT_INSTRUMENT_NOT_FOUND');
  });

  it('needs instruments:write (403 without it)', async () => {
    const card = await saveCard(tenant, customerId, CARDS.visa);
    expectError(
      await patch(card.id, { status: 'expired' }, await keyWithScopes(tenant, ['instruments:read'])),
      403,
      'authorization_error',
    );
  });
});

describe('DELETE /api/v1/merchants/:merchant_id/payment-instruments/:payment_instrument_id', () => {
  let tenant: Tenant;
  let customerId: string;
  before(async () => {
    tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
    customerId = await createCustomer(tenant);
  });

  it('answers 204 and revokes the instrument permanently (a repeat is a 204 no-op)', async () => {
    const card = await saveCard(tenant, customerId, CARDS.visa);
    const path = `${instrumentsPath(tenant.merchant_id)}/${card.id}`;
    const res = await api.delete(path, { key: tenant.merchant_secret_key });
    expect(res.status, res.text).to.equal(204);
    expect(res.text).to.equal('');
    expect((await api.delete(path, { key: tenant.merchant_secret_key })).status).to.equal(204);
    const got = await api.get(path, { key: tenant.merchant_secret_key });
    expect(got.body.data.status).to.equal('revoked');
    expectError(
      await api.patch(path, { key: tenant.merchant_secret_key, body: { status: 'active' } }),
      422,
      'business_rule_error',
    );
  });

  it('lets the same card be enrolled again as a new instrument once revoked', async () => {
    const card = await saveCard(tenant, customerId, CARDS.amex);
    await api.delete(`${instrumentsPath(tenant.merchant_id)}/${card.id}`, { key: tenant.merchant_secret_key });
    const again = await saveCard(tenant, customerId, CARDS.amex);
    expect(again.id).to.not.equal(card.id);
    expect(again.deduplicated).to.equal(false);
  });

  it('answers 404 for unknown or foreign ids and 403 for an organization key of another organization', async () => {
    const card = await saveCard(tenant, customerId, CARDS.visa);
    const stranger = await createTenant();
    expectError(
      await api.delete(`${instrumentsPath(stranger.merchant_id)}/${card.id}`, { key: stranger.merchant_secret_key }),
      404,
      'not_found_error',
      'PAYMENT_INSTRUMENT_NOT_FOUND',
    );
    expectError(
      await api.delete(`${instrumentsPath(tenant.merchant_id)}/${card.id}`, { key: stranger.organization_secret_key }),
      403,
      'authorization_error',
    );
  });
});

describe('assertChargeable (payment instrument service check)', () => {
  it('allows an active instrument and refuses expired, revoked and past-expiry ones with 422 PAYMENT_INSTRUMENT_NOT_CHARGEABLE', async () => {
    const tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
    const card = await saveCard(tenant, await createCustomer(tenant), CARDS.visa);
    const load = () => stack().orm.em.fork().findOneOrFail(PaymentInstrumentSchema, { id: card.id });
    assertChargeable(await load());
    for (const columns of [
      { status: 'expired' },
      { status: 'revoked' },
      { status: 'active', card_expires_at: new Date(Date.now() - 1) },
    ]) {
      await setStored(card.id, columns);
      let thrown: unknown;
      try {
        assertChargeable(await load());
      } catch (caught) {
        thrown = caught;
      }
      expect(thrown).to.be.instanceOf(ApiError).and.include({ status: 422, code: 'PAYMENT_INSTRUMENT_NOT_CHARGEABLE' });
    }
  });
});

describe('DELETE /api/v1/customers/:customerId with saved cards', () => {
  // Saved cards are payment history: the customer is kept (409) and so are its instruments.
  it('answers 409 RESOURCE_IN_USE and keeps the customer and its saved instruments', async () => {
    const tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
    const customerId = await createCustomer(tenant);
    const card = await saveCard(tenant, customerId, CARDS.visa);
    const res = await api.delete(`/customers/${customerId}`, { key: tenant.merchant_secret_key });
    expectError(res, 409, 'conflict_error', 'RESOURCE_IN_USE');
    expect(
      (await api.get(`${instrumentsPath(tenant.merchant_id)}/${card.id}`, { key: tenant.merchant_secret_key })).status,
    ).to.equal(200);
  });
});
