/** GET /offers, GET /offers/:id and GET /offers/:id/default-price (Document 2, "Offers"). */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { createFamilyProduct, OFFER_KEYS, postOffer, PRICE_KEYS } from '../helpers/offers';

const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);

describe('GET /api/v1/offers', () => {
  let tenant: Tenant;
  let productId: string;
  beforeEach(async () => {
    tenant = await createTenant();
    productId = (await createFamilyProduct(tenant.merchant_id)).id;
  });
  const list = (query: Record<string, any> = {}, key = tenant.merchant_secret_key) =>
    api.get('/offers', { key, query });

  it('lists offer summaries without prices, newest first, with meta.pagination', async () => {
    const first = await postOffer(tenant, productId);
    const second = await postOffer(tenant, productId);
    const res = await list();
    const items = expectWrapped(res, 200, { list: true });
    expect(ids(items)).to.deep.equal([second.id, first.id]);
    for (const item of items) expect(Object.keys(item).sort()).to.deep.equal([...OFFER_KEYS].sort());
    expect(res.body.meta.pagination).to.deep.equal({
      page: 1,
      limit: 20,
      total: 2,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
  });

  it('pages with page and limit', async () => {
    const created = [];
    for (let i = 0; i < 3; i += 1) created.push(await postOffer(tenant, productId));
    const res = await list({ page: 2, limit: 2 });
    expect(ids(res.body.data)).to.deep.equal([created[0].id]);
    expect(res.body.meta.pagination).to.include({
      page: 2,
      limit: 2,
      total: 3,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
  });

  it('filters by product_id, status, billing_cycle, is_default and name (partial, case-insensitive), combined with AND', async () => {
    const otherProduct = (await createFamilyProduct(tenant.merchant_id)).id;
    const gold = await postOffer(tenant, productId, { name: 'Gold Annual', billing_cycle: 'yearly', is_default: true });
    const archived = await postOffer(tenant, productId, { name: 'Old gold', status: 'archived' });
    const silver = await postOffer(tenant, otherProduct, { name: 'Silver', billing_cycle: 'quarterly' });
    expect(ids((await list({ product_id: productId })).body.data)).to.have.members([gold.id, archived.id]);
    expect(ids((await list({ status: 'archived' })).body.data)).to.deep.equal([archived.id]);
    expect(ids((await list({ billing_cycle: 'yearly,quarterly' })).body.data)).to.have.members([gold.id, silver.id]);
    expect(ids((await list({ billing_cycle: ['yearly', 'quarterly'] })).body.data)).to.have.members([
      gold.id,
      silver.id,
    ]);
    expect(ids((await list({ is_default: true })).body.data)).to.deep.equal([gold.id]);
    expect(ids((await list({ is_default: false })).body.data)).to.have.members([archived.id, silver.id]);
    expect(ids((await list({ name: 'GOLD' })).body.data)).to.have.members([gold.id, archived.id]);
    expect(ids((await list({ name: 'gold', status: 'active' })).body.data)).to.deep.equal([gold.id]);
  });

  it('treats % and _ in the name filter literally', async () => {
    await postOffer(tenant, productId, { name: 'Plan A' });
    const percent = await postOffer(tenant, productId, { name: '100% off' });
    expect(ids((await list({ name: '%' })).body.data)).to.deep.equal([percent.id]);
    expect((await list({ name: '_' })).body.data).to.deep.equal([]);
  });

  it("leaves out soft-deleted offers and other merchants' offers", async () => {
    const kept = await postOffer(tenant, productId);
    const deleted = await postOffer(tenant, productId);
    await api.delete(`/offers/${deleted.id}`, { key: tenant.merchant_secret_key });
    const other = await createTenant();
    await postOffer(other, (await createFamilyProduct(other.merchant_id)).id);
    expect(ids((await list()).body.data)).to.deep.equal([kept.id]);
  });

  it('rejects an unknown enum value, a bad boolean, a limit over 100 and unknown parameters with 400', async () => {
    expectFieldErrors(await list({ status: 'draft' }), ['status']);
    expectFieldErrors(await list({ billing_cycle: 'weekly' }), ['billing_cycle']);
    expectFieldErrors(await list({ is_default: 'maybe' }), ['is_default']);
    expectFieldErrors(await list({ limit: 101 }), ['limit']);
    expectFieldErrors(await list({ currency: 'USD' }), ['currency']);
  });

  it('accepts an organization key with merchant_id in the query', async () => {
    const offer = await postOffer(tenant, productId);
    expect(
      ids((await list({ merchant_id: tenant.merchant_id }, tenant.organization_secret_key)).body.data),
    ).to.deep.equal([offer.id]);
  });

  it('refuses a key without offers:read (403)', async () => {
    expectError(await list({}, await keyWithScopes(tenant, ['offers:write'])), 403, 'authorization_error');
  });
});

describe('GET /api/v1/offers/:id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('returns the offer with its live prices, default first then by currency', async () => {
    const created = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id, {
      prices: [
        { currency: 'USD', amount: 1 },
        { currency: 'EUR', amount: 2, is_default: true },
        { currency: 'BRL', amount: 3 },
      ],
    });
    const usd = created.prices.find((p: any) => p.currency === 'USD');
    await api.delete(`/offer-prices/${usd.id}`, { key: tenant.merchant_secret_key });
    const offer = expectWrapped(await api.get(`/offers/${created.id}`, { key: tenant.merchant_secret_key }), 200);
    expect(Object.keys(offer).sort()).to.deep.equal([...OFFER_KEYS, 'prices'].sort());
    expect(offer.prices.map((p: any) => p.currency)).to.deep.equal(['EUR', 'BRL']);
    expect({ ...offer, prices: undefined, updated_at: undefined }).to.deep.equal({
      ...created,
      prices: undefined,
      updated_at: undefined,
    });
  });

  it("returns 404 for an unknown id, a malformed id, a deleted offer and another merchant's offer", async () => {
    const deleted = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id);
    await api.delete(`/offers/${deleted.id}`, { key: tenant.merchant_secret_key });
    const other = await createTenant();
    const foreign = await postOffer(other, (await createFamilyProduct(other.merchant_id)).id, { name: 'Secret plan' });
    for (const id of ['ofr_doesnotexist0000000000', 'not-an-id', deleted.id, foreign.id]) {
      const res = await api.get(`/offers/${id}`, { key: tenant.merchant_secret_key });
      expectError(res, 404, 'not_found_error', 'RESOURCE_NOT_FOUND');
      expect(res.text).to.not.include('Secret plan');
    }
  });

  it('accepts an organization key with merchant_id in the query', async () => {
    const offer = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id);
    const res = await api.get(`/offers/${offer.id}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(expectWrapped(res, 200).id).to.equal(offer.id);
  });
});

describe('GET /api/v1/offers/:id/default-price', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it("returns 200 with data the offer's default price", async () => {
    const offer = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id, {
      prices: [
        { currency: 'USD', amount: 999 },
        { currency: 'BRL', amount: 4990, is_default: true },
      ],
    });
    const price = expectWrapped(
      await api.get(`/offers/${offer.id}/default-price`, { key: tenant.merchant_secret_key }),
      200,
    );
    expect(Object.keys(price).sort()).to.deep.equal([...PRICE_KEYS].sort());
    expect(price).to.include({ offer_id: offer.id, currency: 'BRL', amount: 4990, is_default: true });
  });

  it('returns 200 with data null when the offer has no default price', async () => {
    const offer = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id);
    await api.delete(`/offer-prices/${offer.prices[0].id}`, { key: tenant.merchant_secret_key });
    const res = await api.get(`/offers/${offer.id}/default-price`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(res, 200)).to.equal(null);
  });

  it("returns 404 for an unknown or another merchant's offer", async () => {
    const other = await createTenant();
    const foreign = await postOffer(other, (await createFamilyProduct(other.merchant_id)).id);
    for (const id of ['ofr_doesnotexist0000000000', foreign.id]) {
      expectError(
        await api.get(`/offers/${id}/default-price`, { key: tenant.merchant_secret_key }),
        404,
        'not_found_error',
      );
    }
  });

  it('accepts an organization key with merchant_id and refuses a key without offers:read', async () => {
    const offer = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id);
    const org = await api.get(`/offers/${offer.id}/default-price`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(expectWrapped(org, 200).currency).to.equal('BRL');
    const noScope = await api.get(`/offers/${offer.id}/default-price`, {
      key: await keyWithScopes(tenant, ['products:read']),
    });
    expectError(noScope, 403, 'authorization_error');
  });
});
