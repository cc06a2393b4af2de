/** POST /products, GET /products and GET /products/:id. Lifecycle endpoints: products-lifecycle.test.ts. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped, ISO_UTC_MS } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { createFamilyViaApi, createProductViaApi } from '../helpers/catalog-api';

const createFamily = async (tenant: Tenant) => (await createFamilyViaApi(tenant)).id;
const createProduct = createProductViaApi;

const PRODUCT_KEYS = [
  'created_at',
  'description',
  'id',
  'merchant_id',
  'metadata',
  'name',
  'product_family_id',
  'status',
  'tier_order',
  'type',
  'updated_at',
];
const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((p) => p.id);

describe('POST /api/v1/products', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('returns 201 with a standalone product object (no family, tier_order null)', async () => {
    const res = await api.post('/products', {
      key: tenant.merchant_secret_key,
      body: {
        name: 'E-book',
        type: 'one_time',
        status: 'active',
        description: 'PDF',
        metadata: { sku: 'EB-1', nested: { a: [1, 2] } },
      },
    });
    const product = expectWrapped(res, 201);
    expect(product.id).to.match(/^prd_/);
    expect(product).to.include({
      merchant_id: tenant.merchant_id,
      name: 'E-book',
      type: 'one_time',
      status: 'active',
      description: 'PDF',
      product_family_id: null,
      tier_order: null,
    });
    expect(product.metadata).to.deep.equal({ sku: 'EB-1', nested: { a: [1, 2] } });
    expect(Object.keys(product).sort()).to.deep.equal(PRODUCT_KEYS);
    expect(product.created_at).to.match(ISO_UTC_MS);
  });

  it('places a product in a family at its tier_order', async () => {
    const familyId = await createFamily(tenant);
    const product = await createProduct(tenant, { product_family_id: familyId, tier_order: 0, status: 'archived' });
    expect(product).to.include({ product_family_id: familyId, tier_order: 0, status: 'archived' });
  });

  it('returns 409 PRODUCT_TIER_ORDER_TAKEN when a live product of the family holds the tier_order', async () => {
    const familyId = await createFamily(tenant);
    const holder = await createProduct(tenant, { product_family_id: familyId, tier_order: 2 });
    const res = await api.post('/products', {
      key: tenant.merchant_secret_key,
      body: { name: 'Dup', type: 'recurring', status: 'active', product_family_id: familyId, tier_order: 2 },
    });
    const error = expectError(res, 409, 'conflict_error', 'PRODUCT_TIER_ORDER_TAKEN');
    expect(error.details).to.deep.equal({ product_family_id: familyId, tier_order: 2, existing_product_id: holder.id });
  });

  it('lets exactly one of several concurrent creates at the same tier win; the rest get 409', async () => {
    const familyId = await createFamily(tenant);
    const body = { name: 'Race', type: 'recurring', status: 'active', product_family_id: familyId, tier_order: 1 };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api.post('/products', { key: tenant.merchant_secret_key, body })),
    );
    expect(results.filter((res) => res.status === 201)).to.have.length(1);
    for (const res of results.filter((r) => r.status !== 201))
      expectError(res, 409, 'conflict_error', 'PRODUCT_TIER_ORDER_TAKEN');
  });

  it('lets different families use the same tier_order', async () => {
    await createProduct(tenant, { product_family_id: await createFamily(tenant), tier_order: 0 });
    await createProduct(tenant, { product_family_id: await createFamily(tenant), tier_order: 0 });
  });

  it('rejects a family product without tier_order with 400 naming tier_order', async () => {
    const familyId = await createFamily(tenant);
    const res = await api.post('/products', {
      key: tenant.merchant_secret_key,
      body: { name: 'X', type: 'recurring', status: 'active', product_family_id: familyId },
    });
    expectFieldErrors(res, ['tier_order']);
  });

  it('rejects a tier_order without product_family_id with 400 naming tier_order', async () => {
    const res = await api.post('/products', {
      key: tenant.merchant_secret_key,
      body: { name: 'X', type: 'recurring', status: 'active', tier_order: 1 },
    });
    expectFieldErrors(res, ['tier_order']);
  });

  it("rejects another merchant's, an unknown or a soft-deleted family with 400 naming product_family_id", async () => {
    const foreignFamily = await createFamily(await createTenant());
    const deletedFamily = await createFamily(tenant);
    await api.delete(`/product-families/${deletedFamily}`, { key: tenant.merchant_secret_key });
    for (const familyId of [foreignFamily, deletedFamily, 'pfa_doesnotexist000000000000']) {
      const res = await api.post('/products', {
        key: tenant.merchant_secret_key,
        body: { name: 'X', type: 'recurring', status: 'active', product_family_id: familyId, tier_order: 0 },
      });
      expectFieldErrors(res, ['product_family_id']);
    }
    expect((await api.get('/products', { key: tenant.merchant_secret_key })).body.meta.pagination.total).to.equal(0);
  });

  for (const field of ['name', 'type', 'status']) {
    it(`rejects a body without ${field} with 400 naming it`, async () => {
      const body: Record<string, unknown> = { name: 'X', type: 'recurring', status: 'active' };
      delete body[field];
      expectFieldErrors(await api.post('/products', { key: tenant.merchant_secret_key, body }), [field]);
    });
  }

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown type', { type: 'subscription' }, 'type'],
    ['an unknown status', { status: 'deleted' }, 'status'],
    ['a negative tier_order', { tier_order: -1 }, 'tier_order'],
    ['a fractional tier_order', { tier_order: 1.5 }, 'tier_order'],
    ['a string tier_order', { tier_order: '1' }, 'tier_order'],
    ['a malformed product_family_id', { product_family_id: 'fam_1' }, 'product_family_id'],
    ['metadata that is not an object', { metadata: ['a'] }, 'metadata'],
    ['metadata over 5 KB serialized', { metadata: { blob: 'x'.repeat(5 * 1024) } }, 'metadata'],
    ['an empty name', { name: '' }, 'name'],
    ['an unknown field', { price: 100 }, 'price'],
  ];
  for (const [what, overrides, field] of invalid) {
    it(`rejects ${what} with 400 naming ${field}`, async () => {
      const res = await api.post('/products', {
        key: tenant.merchant_secret_key,
        body: { name: 'X', type: 'recurring', status: 'active', ...overrides },
      });
      expectFieldErrors(res, [field]);
    });
  }

  it('accepts an organization key with merchant_id in the body; refuses one without it with 403', async () => {
    const body = { name: 'Org', type: 'one_time', status: 'active' };
    expectError(await api.post('/products', { key: tenant.organization_secret_key, body }), 403, 'authorization_error');
    const res = await api.post('/products', {
      key: tenant.organization_secret_key,
      body: { ...body, merchant_id: tenant.merchant_id },
    });
    expect(expectWrapped(res, 201).merchant_id).to.equal(tenant.merchant_id);
  });

  it('refuses a key without products:write with 403', async () => {
    const key = await keyWithScopes(tenant, ['products:read']);
    expectError(
      await api.post('/products', { key, body: { name: 'X', type: 'recurring', status: 'active' } }),
      403,
      'authorization_error',
    );
  });

  it('replays an Idempotency-Key with 200 and the same product, creating one', async () => {
    const body = { name: 'Once', type: 'recurring', status: 'active', idempotency_key: `prd-${Date.now()}` };
    const first = await api.post('/products', { key: tenant.merchant_secret_key, body });
    const again = await api.post('/products', { key: tenant.merchant_secret_key, body });
    expectWrapped(first, 201);
    expect(again.status).to.equal(200);
    expect(again.body.data).to.deep.equal(first.body.data);
    expect((await api.get('/products', { key: tenant.merchant_secret_key })).body.meta.pagination.total).to.equal(1);
  });
});

describe('GET /api/v1/products', () => {
  it('lists live products newest first with the nested pagination object, without soft-deleted ones', async () => {
    const tenant = await createTenant();
    const a = await createProduct(tenant);
    const b = await createProduct(tenant);
    const gone = await createProduct(tenant);
    await api.delete(`/products/${gone.id}`, { key: tenant.merchant_secret_key });
    const res = await api.get('/products', { key: tenant.merchant_secret_key, query: { limit: 1, page: 2 } });
    expectWrapped(res, 200, { list: true });
    expect(ids(res)).to.deep.equal([a.id]);
    expect(res.body.meta.pagination).to.deep.equal({
      page: 2,
      limit: 1,
      total: 2,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
    expect(ids(await api.get('/products', { key: tenant.merchant_secret_key }))).to.deep.equal([b.id, a.id]);
  });

  it('filters by type and status (repeated or comma-separated), family and partial name, combined with AND', async () => {
    const tenant = await createTenant();
    const familyId = await createFamily(tenant);
    const book = await createProduct(tenant, { name: 'Cook BOOK', type: 'one_time' });
    const old = await createProduct(tenant, { name: 'Old plan', status: 'archived' });
    const pro = await createProduct(tenant, { name: 'Pro plan', product_family_id: familyId, tier_order: 1 });
    const get = async (query: Record<string, string | string[]>) =>
      ids(await api.get('/products', { key: tenant.merchant_secret_key, query }));
    expect(await get({ type: 'one_time' })).to.deep.equal([book.id]);
    expect(await get({ status: 'archived' })).to.deep.equal([old.id]);
    expect(await get({ status: ['active', 'archived'] })).to.deep.equal([pro.id, old.id, book.id]);
    expect(await get({ status: 'active,archived', type: 'recurring' })).to.deep.equal([pro.id, old.id]);
    expect(await get({ product_family_id: familyId })).to.deep.equal([pro.id]);
    expect(await get({ name: 'book' })).to.deep.equal([book.id]);
    expect(await get({ name: 'PLAN', status: 'active' })).to.deep.equal([pro.id]);
    expect(await get({ name: '%' })).to.deep.equal([]);
  });

  it('bounds creation time inclusively with date_from and date_to, either alone', async () => {
    const tenant = await createTenant();
    const early = await createProduct(tenant);
    const late = await createProduct(tenant);
    // Move `early` a day back so the bounds fall cleanly between the two.
    await stack()
      .orm.em.fork()
      .execute(`update products set created_at = created_at - interval '1 day' where id = ?`, [early.id]);
    const { body } = await api.get(`/products/${early.id}`, { key: tenant.merchant_secret_key });
    const earlyAt = body.data.created_at as string;
    const get = async (query: Record<string, string>) =>
      ids(await api.get('/products', { key: tenant.merchant_secret_key, query }));
    expect(await get({ date_to: earlyAt })).to.deep.equal([early.id]);
    expect(await get({ date_from: earlyAt })).to.deep.equal([late.id, early.id]);
    expect(await get({ date_from: late.created_at, date_to: late.created_at })).to.deep.equal([late.id]);
    expect(await get({ date_from: new Date(Date.now() + 60_000).toISOString() })).to.deep.equal([]);
  });

  it('rejects date_from after date_to, an invalid date and unknown enum values with 400', async () => {
    const tenant = await createTenant();
    const bad: Array<[Record<string, string>, string]> = [
      [{ date_from: '2026-02-01T00:00:00Z', date_to: '2026-01-01T00:00:00Z' }, 'date_from'],
      [{ date_from: 'yesterday' }, 'date_from'],
      [{ type: 'monthly' }, 'type'],
      [{ status: 'active,deleted' }, 'status'],
      [{ product_family_id: 'nope' }, 'product_family_id'],
    ];
    for (const [query, field] of bad) {
      const error = expectError(
        await api.get('/products', { key: tenant.merchant_secret_key, query }),
        400,
        'validation_error',
      );
      // A repeated or comma-separated filter is one field: the error names `status`, not `status.1`.
      expect(Object.keys(error.details), JSON.stringify(query)).to.deep.equal([field]);
    }
  });

  it("never lists another merchant's products; an organization key lists the named merchant's", async () => {
    const tenant = await createTenant();
    const sibling = await addMerchant(tenant);
    const mine = await createProduct(tenant);
    await createProduct({ ...tenant, merchant_secret_key: sibling.merchantKey });
    expect(ids(await api.get('/products', { key: tenant.merchant_secret_key }))).to.deep.equal([mine.id]);
    const org = await api.get('/products', {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(ids(org)).to.deep.equal([mine.id]);
  });

  it('refuses a key without products:read with 403', async () => {
    const tenant = await createTenant();
    const key = await keyWithScopes(tenant, ['products:write']);
    expectError(await api.get('/products', { key }), 403, 'authorization_error');
  });
});

describe('GET /api/v1/products/:id', () => {
  it('returns the product as created', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant, { metadata: { a: 1 } });
    expect(
      expectWrapped(await api.get(`/products/${product.id}`, { key: tenant.merchant_secret_key }), 200),
    ).to.deep.equal(product);
  });

  it("returns 404 for an unknown, malformed, soft-deleted or another merchant's product", async () => {
    const tenant = await createTenant();
    const foreign = await createProduct(await createTenant(), { name: 'Foreign secret' });
    const gone = await createProduct(tenant);
    await api.delete(`/products/${gone.id}`, { key: tenant.merchant_secret_key });
    for (const id of ['prd_doesnotexist000000000000', 'bad', gone.id, foreign.id]) {
      const res = await api.get(`/products/${id}`, { key: tenant.merchant_secret_key });
      expectError(res, 404, 'not_found_error', 'RESOURCE_NOT_FOUND');
      expect(res.text).to.not.include('Foreign secret');
    }
  });

  it('accepts an organization key with merchant_id in the query', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    expectWrapped(
      await api.get(`/products/${product.id}`, {
        key: tenant.organization_secret_key,
        query: { merchant_id: tenant.merchant_id },
      }),
      200,
    );
  });
});
