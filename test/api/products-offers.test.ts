/**
 * A product's offers: GET /products/:id/default-offer (shaped like GET /offers/:id), and product delete and
 * restore leaving the product's offers and prices as they are (Document 2: the product alone is soft-deleted).
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectWrapped } from '../helpers/envelope';
import { createProductViaApi as createProduct } from '../helpers/catalog-api';

let counter = 0;
async function createOffer(tenant: Tenant, productId: string, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/offers', {
    key: tenant.merchant_secret_key,
    body: {
      product_id: productId,
      name: 'Monthly',
      slug: `monthly-${Date.now()}-${++counter}`,
      billing_cycle: 'monthly',
      status: 'active',
      prices: [
        { currency: 'BRL', amount: 4990, is_default: true },
        { currency: 'USD', amount: 999 },
      ],
      ...overrides,
    },
  });
  return expectWrapped(res, 201) as { id: string };
}

const defaultOffer = (tenant: Tenant, productId: string) =>
  api.get(`/products/${productId}/default-offer`, { key: tenant.merchant_secret_key });

describe('GET /api/v1/products/:id/default-offer', () => {
  it('returns 200 with the default offer and its prices, exactly as GET /offers/:id shows it', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    await createOffer(tenant, product.id, { is_default: false });
    const offer = await createOffer(tenant, product.id, { is_default: true });
    const data = expectWrapped(await defaultOffer(tenant, product.id), 200);
    expect(data.id).to.equal(offer.id);
    expect(data.is_default).to.equal(true);
    expect(data.prices.map((p: { currency: string }) => p.currency)).to.deep.equal(['BRL', 'USD']);
    const direct = await api.get(`/offers/${offer.id}`, { key: tenant.merchant_secret_key });
    expect(data).to.deep.equal(expectWrapped(direct, 200));
  });

  it('returns data: null when the product has no default offer', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    await createOffer(tenant, product.id, { is_default: false });
    const res = await defaultOffer(tenant, product.id);
    expectWrapped(res, 200);
    expect(res.body).to.have.property('data', null);
  });

  it('returns data: null once the default offer is soft-deleted', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    const offer = await createOffer(tenant, product.id, { is_default: true });
    expect((await api.delete(`/offers/${offer.id}`, { key: tenant.merchant_secret_key })).status).to.equal(204);
    expect((await defaultOffer(tenant, product.id)).body.data).to.equal(null);
  });

  it("returns 404 for an unknown, soft-deleted or another merchant's product", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await createProduct(other);
    await createOffer(other, foreign.id, { is_default: true, name: 'Foreign offer' });
    const gone = await createProduct(tenant);
    await api.delete(`/products/${gone.id}`, { key: tenant.merchant_secret_key });
    for (const id of ['prd_doesnotexist000000000000', gone.id, foreign.id]) {
      const res = await defaultOffer(tenant, id);
      expectError(res, 404, 'not_found_error', 'RESOURCE_NOT_FOUND');
      expect(res.text).to.not.include('Foreign offer');
    }
  });

  it('accepts an organization key with merchant_id; refuses a key without products:read', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    const res = await api.get(`/products/${product.id}/default-offer`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expectWrapped(res, 200);
    const key = await keyWithScopes(tenant, ['offers:read']);
    expectError(await api.get(`/products/${product.id}/default-offer`, { key }), 403, 'authorization_error');
  });
});

describe('DELETE /api/v1/products/:id and POST /api/v1/products/:id/restore, for the offers', () => {
  const getOffer = (tenant: Tenant, id: string) => api.get(`/offers/${id}`, { key: tenant.merchant_secret_key });

  it("leaves the product's offers live and listed (the product alone is soft-deleted)", async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    const offer = await createOffer(tenant, product.id, { is_default: true });
    await api.delete(`/products/${product.id}`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(await getOffer(tenant, offer.id), 200).status).to.equal('active');
    const list = await api.get('/offers', { key: tenant.merchant_secret_key, query: { product_id: product.id } });
    expect(list.body.data.map((o: { id: string }) => o.id)).to.deep.equal([offer.id]);
  });

  it('restore brings the product back; its offers were never gone, and an offer deleted on its own stays deleted', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    const kept = await createOffer(tenant, product.id, { is_default: true });
    const before = await createOffer(tenant, product.id);
    await api.delete(`/offers/${before.id}`, { key: tenant.merchant_secret_key });
    await api.delete(`/products/${product.id}`, { key: tenant.merchant_secret_key });
    expectWrapped(await api.post(`/products/${product.id}/restore`, { key: tenant.merchant_secret_key }), 201);
    const back = expectWrapped(await getOffer(tenant, kept.id), 200);
    expect(back.prices.map((p: { currency: string }) => p.currency)).to.deep.equal(['BRL', 'USD']);
    expectError(await getOffer(tenant, before.id), 404);
    expect(expectWrapped(await defaultOffer(tenant, product.id), 200).id).to.equal(kept.id);
  });

  it('leaves the product deleted when the restore fails on a taken tier', async () => {
    const tenant = await createTenant();
    const family = await api.post('/product-families', {
      key: tenant.merchant_secret_key,
      body: { name: 'F', slug: `f-${Date.now()}-${++counter}` },
    });
    const familyId = expectWrapped(family, 201).id;
    const product = await createProduct(tenant, { product_family_id: familyId, tier_order: 0 });
    const offer = await createOffer(tenant, product.id);
    await api.delete(`/products/${product.id}`, { key: tenant.merchant_secret_key });
    await createProduct(tenant, { product_family_id: familyId, tier_order: 0 });
    expectError(await api.post(`/products/${product.id}/restore`, { key: tenant.merchant_secret_key }), 409);
    expectError(await api.get(`/products/${product.id}`, { key: tenant.merchant_secret_key }), 404);
    expectWrapped(await getOffer(tenant, offer.id), 200);
  });
});
