/** Product family endpoints of Document 2: create, list, get, update, soft delete and restore. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped, ISO_UTC_MS } from '../helpers/envelope';
import { createFamilyViaApi, uniqueFamilySlug } from '../helpers/catalog-api';

const uniqueSlug = uniqueFamilySlug;
const createFamily = createFamilyViaApi;

const FAMILY_KEYS = [
  'change_charge_behavior',
  'created_at',
  'custom_plan_id',
  'description',
  'id',
  'merchant_id',
  'name',
  'slug',
  'updated_at',
];

describe('POST /api/v1/product-families', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('returns 201 with the family object, without deleted_at on a live family', async () => {
    const res = await api.post('/product-families', {
      key: tenant.merchant_secret_key,
      body: {
        name: 'Gold',
        slug: 'gold',
        description: 'Top tier',
        custom_plan_id: 'ext-1',
        change_charge_behavior: 'prorated',
      },
    });
    const family = expectWrapped(res, 201);
    expect(family.id).to.match(/^pfa_/);
    expect(family).to.include({
      merchant_id: tenant.merchant_id,
      name: 'Gold',
      slug: 'gold',
      description: 'Top tier',
      custom_plan_id: 'ext-1',
      change_charge_behavior: 'prorated',
    });
    expect(Object.keys(family).sort()).to.deep.equal(FAMILY_KEYS);
    expect(family.created_at).to.match(ISO_UTC_MS);
  });

  it('defaults change_charge_behavior to next_renew and optional fields to null', async () => {
    const family = await createFamily(tenant);
    expect(family).to.include({ change_charge_behavior: 'next_renew', description: null, custom_plan_id: null });
  });

  it('returns 409 PRODUCT_FAMILY_SLUG_TAKEN for a slug a live family of the merchant uses', async () => {
    const first = await createFamily(tenant, { slug: 'taken' });
    const res = await api.post('/product-families', {
      key: tenant.merchant_secret_key,
      body: { name: 'Other', slug: 'taken' },
    });
    const error = expectError(res, 409, 'conflict_error', 'PRODUCT_FAMILY_SLUG_TAKEN');
    expect(error.details).to.deep.equal({ slug: 'taken', existing_product_family_id: first.id });
  });

  it('returns 409 PRODUCT_FAMILY_SLUG_TAKEN (details.custom_plan_id) for a custom_plan_id a live family uses', async () => {
    await createFamily(tenant, { custom_plan_id: 'plan-x' });
    const res = await api.post('/product-families', {
      key: tenant.merchant_secret_key,
      body: { name: 'Other', slug: uniqueSlug(), custom_plan_id: 'plan-x' },
    });
    const error = expectError(res, 409, 'conflict_error', 'PRODUCT_FAMILY_SLUG_TAKEN');
    expect(error.details).to.have.property('custom_plan_id', 'plan-x');
  });

  it('lets exactly one of several concurrent creates with the same slug win; the rest get 409', async () => {
    const body = { name: 'Race', slug: uniqueSlug('race') };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api.post('/product-families', { key: tenant.merchant_secret_key, body })),
    );
    expect(results.filter((res) => res.status === 201)).to.have.length(1);
    for (const res of results.filter((r) => r.status !== 201))
      expectError(res, 409, 'conflict_error', 'PRODUCT_FAMILY_SLUG_TAKEN');
  });

  it('lets several families leave custom_plan_id unset', async () => {
    await createFamily(tenant);
    await createFamily(tenant, { custom_plan_id: null });
  });

  it('lets two merchants use the same slug and custom_plan_id', async () => {
    const other = await createTenant();
    await createFamily(tenant, { slug: 'shared', custom_plan_id: 'same' });
    await createFamily(other, { slug: 'shared', custom_plan_id: 'same' });
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['an uppercase slug', { slug: 'Gold' }, 'slug'],
    ['a slug with spaces', { slug: 'gold plan' }, 'slug'],
    ['a slug with a leading dash', { slug: '-gold' }, 'slug'],
    ['an empty name', { name: '' }, 'name'],
    ['an unknown change_charge_behavior', { change_charge_behavior: 'immediately' }, 'change_charge_behavior'],
    ['a non-string custom_plan_id', { custom_plan_id: 42 }, 'custom_plan_id'],
    ['an unknown field', { tier: 1 }, 'tier'],
  ];
  for (const [what, overrides, field] of invalid) {
    it(`rejects ${what} with 400 naming ${field} and creates nothing`, async () => {
      const res = await api.post('/product-families', {
        key: tenant.merchant_secret_key,
        body: { name: 'Gold', slug: uniqueSlug(), ...overrides },
      });
      expectFieldErrors(res, [field]);
      const list = await api.get('/product-families', { key: tenant.merchant_secret_key });
      expect(list.body.meta.pagination.total).to.equal(0);
    });
  }

  for (const field of ['name', 'slug']) {
    it(`rejects a body without ${field} with 400 naming it`, async () => {
      const body: Record<string, unknown> = { name: 'Gold', slug: uniqueSlug() };
      delete body[field];
      expectFieldErrors(await api.post('/product-families', { key: tenant.merchant_secret_key, body }), [field]);
    });
  }

  it('accepts an organization key with merchant_id in the body', async () => {
    const res = await api.post('/product-families', {
      key: tenant.organization_secret_key,
      body: { name: 'Org', slug: uniqueSlug(), merchant_id: tenant.merchant_id },
    });
    expect(expectWrapped(res, 201).merchant_id).to.equal(tenant.merchant_id);
  });

  it('refuses an organization key without merchant_id with 403', async () => {
    const res = await api.post('/product-families', {
      key: tenant.organization_secret_key,
      body: { name: 'Org', slug: uniqueSlug() },
    });
    expectError(res, 403, 'authorization_error');
  });

  it('refuses a key without products:write with 403', async () => {
    const key = await keyWithScopes(tenant, ['products:read']);
    expectError(
      await api.post('/product-families', { key, body: { name: 'Gold', slug: uniqueSlug() } }),
      403,
      'authorization_error',
    );
  });

  it('replays an Idempotency-Key with 200 and the same family, creating one', async () => {
    const body = { name: 'Gold', slug: uniqueSlug() };
    const headers = { 'Idempotency-Key': `pfa-${Date.now()}` };
    const first = await api.post('/product-families', { key: tenant.merchant_secret_key, body, headers });
    const again = await api.post('/product-families', { key: tenant.merchant_secret_key, body, headers });
    expectWrapped(first, 201);
    expect(again.status).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body.data).to.deep.equal(first.body.data);
    expect(
      (await api.get('/product-families', { key: tenant.merchant_secret_key })).body.meta.pagination.total,
    ).to.equal(1);
  });
});

describe('GET /api/v1/product-families', () => {
  it('lists live families newest first with the nested pagination object', async () => {
    const tenant = await createTenant();
    const first = await createFamily(tenant);
    const second = await createFamily(tenant);
    const res = await api.get('/product-families', { key: tenant.merchant_secret_key });
    expect(expectWrapped(res, 200, { list: true }).map((f: { id: string }) => f.id)).to.deep.equal([
      second.id,
      first.id,
    ]);
    expect(res.body.meta.pagination).to.deep.equal({
      page: 1,
      limit: 20,
      total: 2,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
  });

  it('filters by name partially and case-insensitively, taking % and _ literally', async () => {
    const tenant = await createTenant();
    const gold = await createFamily(tenant, { name: 'Gold 100% plans' });
    await createFamily(tenant, { name: 'Silver' });
    await createFamily(tenant, { name: 'Gold 1000 plans' });
    const ids = async (name: string) =>
      (await api.get('/product-families', { key: tenant.merchant_secret_key, query: { name } })).body.data.map(
        (f: { id: string }) => f.id,
      );
    expect(await ids('0% PLAN')).to.deep.equal([gold.id]);
    expect(await ids('_')).to.deep.equal([]);
    expect(await ids('gold')).to.have.length(2);
  });

  it('filters by exact slug and by change_charge_behavior (several values allowed)', async () => {
    const tenant = await createTenant();
    const a = await createFamily(tenant, { slug: 'alpha', change_charge_behavior: 'prorated' });
    const b = await createFamily(tenant, { slug: 'alpha-two', change_charge_behavior: 'override' });
    await createFamily(tenant, { slug: 'beta' });
    const get = async (query: Record<string, string>) =>
      (await api.get('/product-families', { key: tenant.merchant_secret_key, query })).body.data.map(
        (f: { id: string }) => f.id,
      );
    expect(await get({ slug: 'alpha' })).to.deep.equal([a.id]);
    expect(await get({ change_charge_behavior: 'prorated,override' })).to.deep.equal([b.id, a.id]);
    expect(await get({ change_charge_behavior: 'override', slug: 'alpha' })).to.deep.equal([]);
  });

  it('rejects an unknown change_charge_behavior with 400', async () => {
    const tenant = await createTenant();
    const res = await api.get('/product-families', {
      key: tenant.merchant_secret_key,
      query: { change_charge_behavior: 'never' },
    });
    expectError(res, 400, 'validation_error');
  });

  it("leaves out soft-deleted families and other merchants' families", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const gone = await createFamily(tenant);
    await createFamily(other);
    await api.delete(`/product-families/${gone.id}`, { key: tenant.merchant_secret_key });
    const res = await api.get('/product-families', { key: tenant.merchant_secret_key });
    expect(res.body.data).to.deep.equal([]);
  });

  it('accepts an organization key with merchant_id, scoped to that merchant', async () => {
    const tenant = await createTenant();
    const sibling = await addMerchant(tenant);
    const mine = await createFamily(tenant);
    await createFamily({ ...tenant, merchant_secret_key: sibling.merchantKey });
    const res = await api.get('/product-families', {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(res.body.data.map((f: { id: string }) => f.id)).to.deep.equal([mine.id]);
  });

  it('refuses a key without products:read with 403', async () => {
    const tenant = await createTenant();
    const key = await keyWithScopes(tenant, ['products:write']);
    expectError(await api.get('/product-families', { key }), 403, 'authorization_error');
  });
});

describe('GET /api/v1/product-families/:id', () => {
  it('returns the family', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant);
    const res = await api.get(`/product-families/${family.id}`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(res, 200)).to.deep.equal(family);
  });

  it("returns 404 for an unknown id, a malformed id and another merchant's family", async () => {
    const tenant = await createTenant();
    const foreign = await createFamily(await createTenant(), { name: 'Secret family' });
    for (const id of ['pfa_doesnotexist000000000000', 'not-an-id', foreign.id]) {
      const res = await api.get(`/product-families/${id}`, { key: tenant.merchant_secret_key });
      expectError(res, 404, 'not_found_error', 'RESOURCE_NOT_FOUND');
      expect(res.text).to.not.include('Secret family');
    }
  });

  it('accepts an organization key with merchant_id in the query', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant);
    const res = await api.get(`/product-families/${family.id}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expectWrapped(res, 200);
  });
});

describe('PATCH /api/v1/product-families/:id', () => {
  it('updates the given fields and clears nullable ones with null', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant, { description: 'Old', custom_plan_id: 'p1' });
    const res = await api.patch(`/product-families/${family.id}`, {
      key: tenant.merchant_secret_key,
      body: {
        name: 'Renamed',
        slug: 'renamed',
        description: null,
        custom_plan_id: null,
        change_charge_behavior: 'override',
      },
    });
    expect(expectWrapped(res, 200)).to.include({
      name: 'Renamed',
      slug: 'renamed',
      description: null,
      custom_plan_id: null,
      change_charge_behavior: 'override',
    });
  });

  it('returns 409 on a slug or custom_plan_id another live family holds, and changes nothing', async () => {
    const tenant = await createTenant();
    await createFamily(tenant, { slug: 'holder', custom_plan_id: 'held' });
    const mover = await createFamily(tenant, { name: 'Mover' });
    const bySlug = await api.patch(`/product-families/${mover.id}`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Changed', slug: 'holder' },
    });
    expectError(bySlug, 409, 'conflict_error', 'PRODUCT_FAMILY_SLUG_TAKEN');
    const byPlan = await api.patch(`/product-families/${mover.id}`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Changed', custom_plan_id: 'held' },
    });
    expectError(byPlan, 409, 'conflict_error', 'PRODUCT_FAMILY_SLUG_TAKEN');
    expect(
      (await api.get(`/product-families/${mover.id}`, { key: tenant.merchant_secret_key })).body.data.name,
    ).to.equal('Mover');
  });

  it("keeps the family's own slug and custom_plan_id without conflict", async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant, { custom_plan_id: 'mine' });
    const res = await api.patch(`/product-families/${family.id}`, {
      key: tenant.merchant_secret_key,
      body: { slug: family.slug, custom_plan_id: 'mine' },
    });
    expectWrapped(res, 200);
  });

  it('rejects an uppercase slug and a null name with 400', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant);
    expectFieldErrors(
      await api.patch(`/product-families/${family.id}`, { key: tenant.merchant_secret_key, body: { slug: 'UPPER' } }),
      ['slug'],
    );
    expectFieldErrors(
      await api.patch(`/product-families/${family.id}`, { key: tenant.merchant_secret_key, body: { name: null } }),
      ['name'],
    );
  });

  it("returns 404 for another merchant's family and leaves it unchanged", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await createFamily(other, { name: 'Theirs' });
    expectError(
      await api.patch(`/product-families/${foreign.id}`, { key: tenant.merchant_secret_key, body: { name: 'Mine' } }),
      404,
    );
    expect(
      (await api.get(`/product-families/${foreign.id}`, { key: other.merchant_secret_key })).body.data.name,
    ).to.equal('Theirs');
  });
});

describe('DELETE /api/v1/product-families/:id', () => {
  it('returns 204, then the family is 404 on get and patch', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant);
    const res = await api.delete(`/product-families/${family.id}`, { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expectError(await api.get(`/product-families/${family.id}`, { key: tenant.merchant_secret_key }), 404);
    expectError(
      await api.patch(`/product-families/${family.id}`, { key: tenant.merchant_secret_key, body: { name: 'x' } }),
      404,
    );
    expectError(await api.delete(`/product-families/${family.id}`, { key: tenant.merchant_secret_key }), 404);
  });

  it('frees the slug and custom_plan_id for a new family', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant, { slug: 'reuse', custom_plan_id: 'reuse-plan' });
    await api.delete(`/product-families/${family.id}`, { key: tenant.merchant_secret_key });
    const again = await createFamily(tenant, { slug: 'reuse', custom_plan_id: 'reuse-plan' });
    expect(again.id).to.not.equal(family.id);
  });

  it('is allowed while live products reference the family; they keep its id', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant);
    const product = await api.post('/products', {
      key: tenant.merchant_secret_key,
      body: { name: 'Plan', type: 'recurring', status: 'active', product_family_id: family.id, tier_order: 0 },
    });
    expect((await api.delete(`/product-families/${family.id}`, { key: tenant.merchant_secret_key })).status).to.equal(
      204,
    );
    const kept = await api.get(`/products/${product.body.data.id}`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(kept, 200).product_family_id).to.equal(family.id);
  });

  it("returns 404 for another merchant's family and keeps it", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await createFamily(other);
    expectError(await api.delete(`/product-families/${foreign.id}`, { key: tenant.merchant_secret_key }), 404);
    expectWrapped(await api.get(`/product-families/${foreign.id}`, { key: other.merchant_secret_key }), 200);
  });

  it('accepts an organization key with merchant_id; refuses a key without products:write', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant);
    const readOnly = await keyWithScopes(tenant, ['products:read']);
    expectError(await api.delete(`/product-families/${family.id}`, { key: readOnly }), 403);
    const res = await api.delete(`/product-families/${family.id}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(res.status).to.equal(204);
  });
});

describe('POST /api/v1/product-families/:id/restore', () => {
  it('returns 201 with the live family and its previous attributes', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant, { custom_plan_id: 'back' });
    await api.delete(`/product-families/${family.id}`, { key: tenant.merchant_secret_key });
    const res = await api.post(`/product-families/${family.id}/restore`, { key: tenant.merchant_secret_key });
    const restored = expectWrapped(res, 201);
    expect(restored).to.include({ id: family.id, slug: family.slug, custom_plan_id: 'back' });
    expect(restored).to.not.have.property('deleted_at');
    expectWrapped(await api.get(`/product-families/${family.id}`, { key: tenant.merchant_secret_key }), 200);
  });

  it('returns 400 validation_error when the family is not deleted', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant);
    expectError(
      await api.post(`/product-families/${family.id}/restore`, { key: tenant.merchant_secret_key }),
      400,
      'validation_error',
    );
  });

  it('returns 409 PRODUCT_FAMILY_SLUG_TAKEN when a live family took its slug, and stays deleted', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant, { slug: 'contested' });
    await api.delete(`/product-families/${family.id}`, { key: tenant.merchant_secret_key });
    await createFamily(tenant, { slug: 'contested' });
    expectError(
      await api.post(`/product-families/${family.id}/restore`, { key: tenant.merchant_secret_key }),
      409,
      'conflict_error',
      'PRODUCT_FAMILY_SLUG_TAKEN',
    );
    expectError(await api.get(`/product-families/${family.id}`, { key: tenant.merchant_secret_key }), 404);
  });

  it('returns 409 when a live family took its custom_plan_id', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant, { custom_plan_id: 'contested-plan' });
    await api.delete(`/product-families/${family.id}`, { key: tenant.merchant_secret_key });
    await createFamily(tenant, { custom_plan_id: 'contested-plan' });
    expectError(
      await api.post(`/product-families/${family.id}/restore`, { key: tenant.merchant_secret_key }),
      409,
      'conflict_error',
      'PRODUCT_FAMILY_SLUG_TAKEN',
    );
  });

  it("returns 404 for an unknown id and for another merchant's deleted family", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await createFamily(other);
    await api.delete(`/product-families/${foreign.id}`, { key: other.merchant_secret_key });
    expectError(
      await api.post('/product-families/pfa_doesnotexist000000000000/restore', { key: tenant.merchant_secret_key }),
      404,
    );
    expectError(await api.post(`/product-families/${foreign.id}/restore`, { key: tenant.merchant_secret_key }), 404);
  });

  it('accepts an organization key with merchant_id in the query', async () => {
    const tenant = await createTenant();
    const family = await createFamily(tenant);
    await api.delete(`/product-families/${family.id}`, { key: tenant.merchant_secret_key });
    const res = await api.post(`/product-families/${family.id}/restore`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expectWrapped(res, 201);
  });
});
