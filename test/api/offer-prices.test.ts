/** Offer price endpoints (Document 2, "Offer price" and "Offer prices"). */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { createFamilyProduct, postOffer, postPrice, PRICE_KEYS, rows } from '../helpers/offers';

/** A tenant with one offer priced BRL 4990 (default) and USD 999. */
async function setup(): Promise<{ tenant: Tenant; offer: any; brl: any; usd: any }> {
  const tenant = await createTenant();
  const offer = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id);
  const [brl, usd] = offer.prices;
  return { tenant, offer, brl, usd };
}

describe('POST /api/v1/offers/:offerId/prices', () => {
  let tenant: Tenant;
  let offer: any;
  beforeEach(async () => ({ tenant, offer } = await setup()));
  const post = (
    body: Record<string, unknown>,
    options: { key?: string; query?: Record<string, string>; offerId?: string } = {},
  ) =>
    api.post(`/offers/${options.offerId ?? offer.id}/prices`, {
      key: options.key ?? tenant.merchant_secret_key,
      body,
      query: options.query,
    });

  it('returns 201 with the price; is_default defaults to false and first_charge_amount to null', async () => {
    const price = expectWrapped(await post({ currency: 'EUR', amount: 899 }), 201);
    expect(Object.keys(price).sort()).to.deep.equal([...PRICE_KEYS].sort());
    expect(price).to.include({
      offer_id: offer.id,
      currency: 'EUR',
      amount: 899,
      first_charge_amount: null,
      is_default: false,
    });
    expect(price.id).to.match(/^opr_/);
  });

  it('returns 409 OFFER_PRICE_CURRENCY_EXISTS for a currency the offer already has live', async () => {
    const error = expectError(
      await post({ currency: 'USD', amount: 1 }),
      409,
      'conflict_error',
      'OFFER_PRICE_CURRENCY_EXISTS',
    );
    expect(error.details).to.include({ currency: 'USD', existing_offer_price_id: offer.prices[1].id });
  });

  it('returns 409 OFFER_PRICE_DEFAULT_EXISTS for a second default price (the first is not demoted)', async () => {
    const error = expectError(
      await post({ currency: 'EUR', amount: 1, is_default: true }),
      409,
      'conflict_error',
      'OFFER_PRICE_DEFAULT_EXISTS',
    );
    expect(error.details.existing_offer_price_id).to.equal(offer.prices[0].id);
    const still = await api.get(`/offer-prices/${offer.prices[0].id}`, { key: tenant.merchant_secret_key });
    expect(still.body.data.is_default).to.equal(true);
  });

  it('answers concurrent creates of one currency with one 201 and 409s, never a 500 (the partial unique index decides)', async () => {
    const responses = await Promise.all(Array.from({ length: 4 }, () => post({ currency: 'EUR', amount: 1 })));
    expect(responses.map((res) => res.status).sort()).to.deep.equal([201, 409, 409, 409]);
    for (const res of responses.filter((r) => r.status === 409))
      expectError(res, 409, 'conflict_error', 'OFFER_PRICE_CURRENCY_EXISTS');
  });

  it('accepts a currency again once its price is deleted', async () => {
    await api.delete(`/offer-prices/${offer.prices[1].id}`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(await post({ currency: 'USD', amount: 1099 }), 201).amount).to.equal(1099);
  });

  it('replays with 200 for the same Idempotency-Key', async () => {
    const headers = { 'Idempotency-Key': `price-${Date.now()}` };
    const first = await api.post(`/offers/${offer.id}/prices`, {
      key: tenant.merchant_secret_key,
      body: { currency: 'EUR', amount: 1 },
      headers,
    });
    const again = await api.post(`/offers/${offer.id}/prices`, {
      key: tenant.merchant_secret_key,
      body: { currency: 'EUR', amount: 1 },
      headers,
    });
    expect([first.status, again.status]).to.deep.equal([201, 200]);
    expect(again.body.data).to.deep.equal(first.body.data);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['a 2-letter currency', { currency: 'EU', amount: 1 }, 'currency'],
    ['a 4-letter currency', { currency: 'EURO', amount: 1 }, 'currency'],
    ['a lowercase currency', { currency: 'eur', amount: 1 }, 'currency'],
    ['a negative amount', { currency: 'EUR', amount: -1 }, 'amount'],
    ['a decimal amount', { currency: 'EUR', amount: 1.5 }, 'amount'],
    ['a negative first_charge_amount', { currency: 'EUR', amount: 1, first_charge_amount: -1 }, 'first_charge_amount'],
    ['a missing amount', { currency: 'EUR' }, 'amount'],
    ['a missing currency', { amount: 1 }, 'currency'],
    ['an unknown field', { currency: 'EUR', amount: 1, offer_id: 'ofr_x' }, 'offer_id'],
  ];
  for (const [what, body, field] of invalid) {
    it(`rejects ${what} with 400 naming ${field}`, async () => {
      expectFieldErrors(await post(body), [field]);
    });
  }

  it("returns 404 when the offer is unknown, deleted or another merchant's", async () => {
    const other = await setup();
    const deleted = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id);
    await api.delete(`/offers/${deleted.id}`, { key: tenant.merchant_secret_key });
    for (const offerId of ['ofr_doesnotexist0000000000', deleted.id, other.offer.id]) {
      expectError(await post({ currency: 'EUR', amount: 1 }, { offerId }), 404, 'not_found_error');
    }
    const [row] = await rows('select count(*) as n from offer_prices where offer_id = ?', [other.offer.id]);
    expect(Number(row.n)).to.equal(2);
  });

  it('accepts an organization key with merchant_id in the query (or in the body)', async () => {
    const key = tenant.organization_secret_key;
    expectWrapped(await post({ currency: 'EUR', amount: 1 }, { key, query: { merchant_id: tenant.merchant_id } }), 201);
    expectWrapped(await post({ currency: 'GBP', amount: 1, merchant_id: tenant.merchant_id }, { key }), 201);
  });

  it('refuses a body merchant_id that contradicts the query with 400', async () => {
    const second = await addMerchant(tenant);
    const res = await post(
      { currency: 'EUR', amount: 1, merchant_id: second.merchantId },
      { key: tenant.organization_secret_key, query: { merchant_id: tenant.merchant_id } },
    );
    expectFieldErrors(res, ['merchant_id']);
  });

  it('returns 404 when an organization key names its other merchant, which does not own the offer', async () => {
    const second = await addMerchant(tenant);
    const res = await post(
      { currency: 'EUR', amount: 1 },
      { key: tenant.organization_secret_key, query: { merchant_id: second.merchantId } },
    );
    expectError(res, 404, 'not_found_error');
  });

  it('refuses a key without offers:write (403)', async () => {
    expectError(
      await post({ currency: 'EUR', amount: 1 }, { key: await keyWithScopes(tenant, ['offers:read']) }),
      403,
      'authorization_error',
    );
  });
});

describe('GET /api/v1/offers/:offerId/prices', () => {
  it('lists live prices default first, then by currency ascending, with pagination', async () => {
    const { tenant, offer, usd } = await setup();
    for (const currency of ['EUR', 'ARS', 'JPY']) await postPrice(tenant, offer.id, { currency, amount: 1 });
    await api.delete(`/offer-prices/${usd.id}`, { key: tenant.merchant_secret_key });
    const res = await api.get(`/offers/${offer.id}/prices`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(res, 200, { list: true }).map((p: any) => p.currency)).to.deep.equal([
      'BRL',
      'ARS',
      'EUR',
      'JPY',
    ]);
    expect(res.body.meta.pagination).to.include({ total: 4, page: 1, limit: 20 });
    const page = await api.get(`/offers/${offer.id}/prices`, {
      key: tenant.merchant_secret_key,
      query: { page: 2, limit: 3 },
    });
    expect(page.body.data.map((p: any) => p.currency)).to.deep.equal(['JPY']);
  });

  it('filters by currency and is_default', async () => {
    const { tenant, offer } = await setup();
    const get = (query: Record<string, any>) =>
      api.get(`/offers/${offer.id}/prices`, { key: tenant.merchant_secret_key, query });
    expect((await get({ currency: 'USD' })).body.data.map((p: any) => p.currency)).to.deep.equal(['USD']);
    expect((await get({ is_default: true })).body.data.map((p: any) => p.currency)).to.deep.equal(['BRL']);
    expect((await get({ is_default: false })).body.data.map((p: any) => p.currency)).to.deep.equal(['USD']);
    expectFieldErrors(await get({ currency: 'US' }), ['currency']);
  });

  it("returns 404 for another merchant's offer and accepts an organization key with merchant_id", async () => {
    const { tenant, offer } = await setup();
    const other = await createTenant();
    expectError(
      await api.get(`/offers/${offer.id}/prices`, { key: other.merchant_secret_key }),
      404,
      'not_found_error',
    );
    const org = await api.get(`/offers/${offer.id}/prices`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(expectWrapped(org, 200, { list: true })).to.have.length(2);
  });
});

describe('GET /api/v1/offer-prices/:id', () => {
  it("returns the price; 404 for unknown, deleted or another merchant's prices", async () => {
    const { tenant, brl, usd } = await setup();
    expect(
      expectWrapped(await api.get(`/offer-prices/${brl.id}`, { key: tenant.merchant_secret_key }), 200),
    ).to.deep.equal(brl);
    await api.delete(`/offer-prices/${usd.id}`, { key: tenant.merchant_secret_key });
    const other = await createTenant();
    for (const [id, key] of [
      [usd.id, tenant.merchant_secret_key],
      ['opr_doesnotexist0000000000', tenant.merchant_secret_key],
      [brl.id, other.merchant_secret_key],
    ]) {
      expectError(await api.get(`/offer-prices/${id}`, { key }), 404, 'not_found_error');
    }
  });
});

describe('PATCH /api/v1/offer-prices/:id', () => {
  let tenant: Tenant;
  let brl: any;
  let usd: any;
  beforeEach(async () => ({ tenant, brl, usd } = await setup()));
  const patch = (id: string, body: Record<string, unknown>, key = tenant.merchant_secret_key) =>
    api.patch(`/offer-prices/${id}`, { key, body });

  it('updates currency, amount, first_charge_amount and is_default', async () => {
    const updated = expectWrapped(await patch(usd.id, { currency: 'EUR', amount: 1299, first_charge_amount: 99 }), 200);
    expect(updated).to.include({
      id: usd.id,
      currency: 'EUR',
      amount: 1299,
      first_charge_amount: 99,
      is_default: false,
    });
    expect(expectWrapped(await patch(usd.id, { first_charge_amount: null }), 200).first_charge_amount).to.equal(null);
  });

  it('changes only the price row: the offer and its other prices are untouched (future charges only)', async () => {
    const before = await rows('select * from offer_prices where offer_id = ? and id <> ? order by id', [
      usd.offer_id,
      usd.id,
    ]);
    const offerBefore = await rows('select * from offers where id = ?', [usd.offer_id]);
    await patch(usd.id, { amount: 5 });
    expect(
      await rows('select * from offer_prices where offer_id = ? and id <> ? order by id', [usd.offer_id, usd.id]),
    ).to.deep.equal(before);
    expect(await rows('select * from offers where id = ?', [usd.offer_id])).to.deep.equal(offerBefore);
  });

  it('returns 409 OFFER_PRICE_CURRENCY_EXISTS when moving to a currency another live price has', async () => {
    expectError(await patch(usd.id, { currency: 'BRL' }), 409, 'conflict_error', 'OFFER_PRICE_CURRENCY_EXISTS');
  });

  it('returns 409 OFFER_PRICE_DEFAULT_EXISTS on a second default; unsetting the first allows it', async () => {
    expectError(await patch(usd.id, { is_default: true }), 409, 'conflict_error', 'OFFER_PRICE_DEFAULT_EXISTS');
    expectWrapped(await patch(brl.id, { is_default: false }), 200);
    expect(expectWrapped(await patch(usd.id, { is_default: true }), 200).is_default).to.equal(true);
  });

  it('rejects bad values with 400 and refuses to move a price to another offer', async () => {
    expectFieldErrors(await patch(usd.id, { amount: -1 }), ['amount']);
    expectFieldErrors(await patch(usd.id, { currency: 'US' }), ['currency']);
    expectFieldErrors(await patch(usd.id, { offer_id: 'ofr_x' }), ['offer_id']);
  });

  it("returns 404 for another merchant's price and refuses a key without offers:write", async () => {
    const other = await createTenant();
    expectError(await patch(usd.id, { amount: 1 }, other.merchant_secret_key), 404, 'not_found_error');
    expectError(
      await patch(usd.id, { amount: 1 }, await keyWithScopes(tenant, ['offers:read'])),
      403,
      'authorization_error',
    );
  });
});

describe('DELETE /api/v1/offer-prices/:id', () => {
  it('returns 204, soft-deletes (row kept) and frees the currency and default slots', async () => {
    const { tenant, offer, brl } = await setup();
    expect((await api.delete(`/offer-prices/${brl.id}`, { key: tenant.merchant_secret_key })).status).to.equal(204);
    const [row] = await rows('select deleted_at from offer_prices where id = ?', [brl.id]);
    expect(row.deleted_at).to.not.equal(null);
    expectWrapped(
      await api.post(`/offers/${offer.id}/prices`, {
        key: tenant.merchant_secret_key,
        body: { currency: 'BRL', amount: 1, is_default: true },
      }),
      201,
    );
  });

  it("returns 404 for another merchant's or an already deleted price; accepts an organization key with merchant_id", async () => {
    const { tenant, usd } = await setup();
    const other = await createTenant();
    expectError(await api.delete(`/offer-prices/${usd.id}`, { key: other.merchant_secret_key }), 404);
    const org = await api.delete(`/offer-prices/${usd.id}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(org.status).to.equal(204);
    expectError(await api.delete(`/offer-prices/${usd.id}`, { key: tenant.merchant_secret_key }), 404);
  });
});

describe('POST /api/v1/offer-prices/:id/restore', () => {
  let tenant: Tenant;
  let offer: any;
  let brl: any;
  let usd: any;
  beforeEach(async () => ({ tenant, offer, brl, usd } = await setup()));
  const restore = (id: string, key = tenant.merchant_secret_key) => api.post(`/offer-prices/${id}/restore`, { key });
  const remove = (id: string) => api.delete(`/offer-prices/${id}`, { key: tenant.merchant_secret_key });

  it('returns 201 with the price live again, as it was', async () => {
    await remove(brl.id);
    const restored = expectWrapped(await restore(brl.id), 201);
    expect({ ...restored, updated_at: undefined }).to.deep.equal({ ...brl, updated_at: undefined });
  });

  it('returns 400 validation_error when the price is not deleted', async () => {
    expectError(await restore(usd.id), 400, 'validation_error');
  });

  it('returns 409 OFFER_PRICE_CURRENCY_EXISTS when a live price took its currency', async () => {
    await remove(usd.id);
    await postPrice(tenant, offer.id, { currency: 'USD', amount: 1 });
    expectError(await restore(usd.id), 409, 'conflict_error', 'OFFER_PRICE_CURRENCY_EXISTS');
  });

  it('returns 409 OFFER_PRICE_DEFAULT_EXISTS when it was the default and the offer has a default again', async () => {
    await remove(brl.id);
    await api.patch(`/offer-prices/${usd.id}`, { key: tenant.merchant_secret_key, body: { is_default: true } });
    expectError(await restore(brl.id), 409, 'conflict_error', 'OFFER_PRICE_DEFAULT_EXISTS');
  });

  it('returns 400 while its offer is deleted (restore the offer instead)', async () => {
    await api.delete(`/offers/${offer.id}`, { key: tenant.merchant_secret_key });
    expectFieldErrors(await restore(usd.id), ['offer_id']);
  });

  it("returns 404 for an unknown or another merchant's price; accepts an organization key with merchant_id", async () => {
    await remove(usd.id);
    const other = await createTenant();
    expectError(await restore(usd.id, other.merchant_secret_key), 404, 'not_found_error');
    expectError(await restore('opr_doesnotexist0000000000'), 404, 'not_found_error');
    const org = await api.post(`/offer-prices/${usd.id}/restore`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expectWrapped(org, 201);
  });
});
