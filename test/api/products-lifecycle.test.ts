/** PATCH, DELETE, restore, archive and unarchive of products (the Product state table of Document 2). */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { createFamilyViaApi, createProductViaApi as createProduct } from '../helpers/catalog-api';

const createFamily = async (tenant: Tenant) => (await createFamilyViaApi(tenant)).id;
const get = (tenant: Tenant, id: string) => api.get(`/products/${id}`, { key: tenant.merchant_secret_key });
const patch = (tenant: Tenant, id: string, body: Record<string, unknown>) =>
  api.patch(`/products/${id}`, { key: tenant.merchant_secret_key, body });
const post = (tenant: Tenant, id: string, action: string) =>
  api.post(`/products/${id}/${action}`, { key: tenant.merchant_secret_key });

describe('PATCH /api/v1/products/:id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('updates name, type, status and description, leaving other fields unchanged', async () => {
    const product = await createProduct(tenant, { description: 'Old', metadata: { keep: true } });
    const res = await patch(tenant, product.id, {
      name: 'Renamed',
      type: 'one_time',
      status: 'archived',
      description: null,
    });
    const updated = expectWrapped(res, 200);
    expect(updated).to.include({ name: 'Renamed', type: 'one_time', status: 'archived', description: null });
    expect(updated.metadata).to.deep.equal({ keep: true });
    expect(updated.created_at).to.equal(product.created_at);
  });

  it('replaces metadata instead of merging it, and clears it with null', async () => {
    const product = await createProduct(tenant, { metadata: { a: 1, b: 2 } });
    expect(expectWrapped(await patch(tenant, product.id, { metadata: { c: 3 } }), 200).metadata).to.deep.equal({
      c: 3,
    });
    expect(expectWrapped(await patch(tenant, product.id, { metadata: null }), 200).metadata).to.equal(null);
  });

  it('moves a standalone product into a family at a tier_order', async () => {
    const familyId = await createFamily(tenant);
    const product = await createProduct(tenant);
    const res = await patch(tenant, product.id, { product_family_id: familyId, tier_order: 3 });
    expect(expectWrapped(res, 200)).to.include({ product_family_id: familyId, tier_order: 3 });
  });

  it('requires tier_order when joining a family or moving to another one', async () => {
    const standalone = await createProduct(tenant);
    const member = await createProduct(tenant, { product_family_id: await createFamily(tenant), tier_order: 0 });
    const target = await createFamily(tenant);
    expectFieldErrors(await patch(tenant, standalone.id, { product_family_id: target }), ['tier_order']);
    expectFieldErrors(await patch(tenant, member.id, { product_family_id: target }), ['tier_order']);
  });

  it('clears tier_order when the product leaves its family, and refuses a tier_order without a family', async () => {
    const member = await createProduct(tenant, { product_family_id: await createFamily(tenant), tier_order: 4 });
    expectFieldErrors(await patch(tenant, member.id, { product_family_id: null, tier_order: 4 }), ['tier_order']);
    expect(expectWrapped(await patch(tenant, member.id, { product_family_id: null }), 200)).to.include({
      product_family_id: null,
      tier_order: null,
    });
    expectFieldErrors(await patch(tenant, member.id, { tier_order: 1 }), ['tier_order']);
  });

  it('refuses tier_order null while the product stays in its family', async () => {
    const member = await createProduct(tenant, { product_family_id: await createFamily(tenant), tier_order: 0 });
    expectFieldErrors(await patch(tenant, member.id, { tier_order: null }), ['tier_order']);
  });

  it('returns 409 PRODUCT_TIER_ORDER_TAKEN when the new tier or family slot is held, and changes nothing', async () => {
    const familyId = await createFamily(tenant);
    const holder = await createProduct(tenant, { product_family_id: familyId, tier_order: 1 });
    const mover = await createProduct(tenant, { name: 'Mover', product_family_id: familyId, tier_order: 2 });
    const outsider = await createProduct(tenant);
    for (const [id, body] of [
      [mover.id, { name: 'Changed', tier_order: 1 }],
      [outsider.id, { name: 'Changed', product_family_id: familyId, tier_order: 1 }],
    ] as const) {
      const error = expectError(await patch(tenant, id, body), 409, 'conflict_error', 'PRODUCT_TIER_ORDER_TAKEN');
      expect(error.details).to.include({ existing_product_id: holder.id, tier_order: 1 });
    }
    expect((await get(tenant, mover.id)).body.data).to.include({ name: 'Mover', tier_order: 2 });
  });

  it('keeps its own tier_order without conflict', async () => {
    const familyId = await createFamily(tenant);
    const product = await createProduct(tenant, { product_family_id: familyId, tier_order: 5 });
    expectWrapped(
      await patch(tenant, product.id, { product_family_id: familyId, tier_order: 5, name: 'Same slot' }),
      200,
    );
  });

  it("rejects another merchant's family with 400 naming product_family_id", async () => {
    const product = await createProduct(tenant);
    const foreign = await createFamily(await createTenant());
    expectFieldErrors(await patch(tenant, product.id, { product_family_id: foreign, tier_order: 0 }), [
      'product_family_id',
    ]);
  });

  it('rejects invalid fields with 400', async () => {
    const product = await createProduct(tenant);
    expectFieldErrors(await patch(tenant, product.id, { status: 'deleted' }), ['status']);
    expectFieldErrors(await patch(tenant, product.id, { name: null }), ['name']);
    expectFieldErrors(await patch(tenant, product.id, { merchant_id: tenant.merchant_id }), ['merchant_id']);
  });

  it("returns 404 for another merchant's or a soft-deleted product", async () => {
    const foreign = await createProduct(await createTenant());
    const gone = await createProduct(tenant);
    await api.delete(`/products/${gone.id}`, { key: tenant.merchant_secret_key });
    for (const id of [foreign.id, gone.id]) expectError(await patch(tenant, id, { name: 'x' }), 404, 'not_found_error');
  });

  it('accepts an organization key with merchant_id in the query; refuses a key without products:write', async () => {
    const product = await createProduct(tenant);
    const readOnly = await keyWithScopes(tenant, ['products:read']);
    expectError(
      await api.patch(`/products/${product.id}`, { key: readOnly, body: { name: 'x' } }),
      403,
      'authorization_error',
    );
    const res = await api.patch(`/products/${product.id}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
      body: { name: 'Org' },
    });
    expect(expectWrapped(res, 200).name).to.equal('Org');
  });
});

describe('DELETE /api/v1/products/:id', () => {
  it('returns 204 with an empty body; the product is then absent from get and list', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    const res = await api.delete(`/products/${product.id}`, { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expectError(await get(tenant, product.id), 404);
    expect((await api.get('/products', { key: tenant.merchant_secret_key })).body.data).to.deep.equal([]);
    expectError(await api.delete(`/products/${product.id}`, { key: tenant.merchant_secret_key }), 404);
  });

  it('frees its tier_order for another product of the family', async () => {
    const tenant = await createTenant();
    const familyId = await createFamily(tenant);
    const product = await createProduct(tenant, { product_family_id: familyId, tier_order: 0 });
    await api.delete(`/products/${product.id}`, { key: tenant.merchant_secret_key });
    await createProduct(tenant, { product_family_id: familyId, tier_order: 0 });
  });

  it("returns 404 for another merchant's product and keeps it; accepts an organization key with merchant_id", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await createProduct(other);
    expectError(await api.delete(`/products/${foreign.id}`, { key: tenant.merchant_secret_key }), 404);
    expectWrapped(await get(other, foreign.id), 200);
    const mine = await createProduct(tenant);
    expect(
      (
        await api.delete(`/products/${mine.id}`, {
          key: tenant.organization_secret_key,
          query: { merchant_id: tenant.merchant_id },
        })
      ).status,
    ).to.equal(204);
  });
});

describe('POST /api/v1/products/:id/restore', () => {
  it('returns 201 with the product live again with its previous attributes', async () => {
    const tenant = await createTenant();
    const familyId = await createFamily(tenant);
    const product = await createProduct(tenant, {
      product_family_id: familyId,
      tier_order: 2,
      metadata: { x: 1 },
      status: 'archived',
    });
    await api.delete(`/products/${product.id}`, { key: tenant.merchant_secret_key });
    const restored = expectWrapped(await post(tenant, product.id, 'restore'), 201);
    expect(restored).to.include({ id: product.id, product_family_id: familyId, tier_order: 2, status: 'archived' });
    expect(restored.metadata).to.deep.equal({ x: 1 });
    expectWrapped(await get(tenant, product.id), 200);
  });

  it('returns 400 validation_error when the product is not deleted', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    expectError(await post(tenant, product.id, 'restore'), 400, 'validation_error');
  });

  it('returns 409 PRODUCT_TIER_ORDER_TAKEN when a live product took its tier meanwhile, and stays deleted', async () => {
    const tenant = await createTenant();
    const familyId = await createFamily(tenant);
    const product = await createProduct(tenant, { product_family_id: familyId, tier_order: 0 });
    await api.delete(`/products/${product.id}`, { key: tenant.merchant_secret_key });
    await createProduct(tenant, { product_family_id: familyId, tier_order: 0 });
    expectError(await post(tenant, product.id, 'restore'), 409, 'conflict_error', 'PRODUCT_TIER_ORDER_TAKEN');
    expectError(await get(tenant, product.id), 404);
  });

  it("returns 404 for an unknown id and another merchant's deleted product", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await createProduct(other);
    await api.delete(`/products/${foreign.id}`, { key: other.merchant_secret_key });
    expectError(await post(tenant, 'prd_doesnotexist000000000000', 'restore'), 404);
    expectError(await post(tenant, foreign.id, 'restore'), 404);
  });
});

describe('POST /api/v1/products/:id/archive', () => {
  it('returns 201 with status archived; the product stays listed', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    expect(expectWrapped(await post(tenant, product.id, 'archive'), 201).status).to.equal('archived');
    const list = await api.get('/products', { key: tenant.merchant_secret_key, query: { status: 'archived' } });
    expect(list.body.data.map((p: { id: string }) => p.id)).to.deep.equal([product.id]);
  });

  it('is idempotent: archiving an archived product returns 201 with it unchanged', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant, { status: 'archived' });
    const res = expectWrapped(await post(tenant, product.id, 'archive'), 201);
    expect(res).to.include({ status: 'archived', updated_at: product.updated_at });
  });

  it("returns 404 for a soft-deleted or another merchant's product; accepts an organization key with merchant_id", async () => {
    const tenant = await createTenant();
    const gone = await createProduct(tenant);
    await api.delete(`/products/${gone.id}`, { key: tenant.merchant_secret_key });
    const foreign = await createProduct(await createTenant());
    for (const id of [gone.id, foreign.id]) expectError(await post(tenant, id, 'archive'), 404);
    const mine = await createProduct(tenant);
    const res = await api.post(`/products/${mine.id}/archive`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expectWrapped(res, 201);
  });

  it('refuses a key without products:write with 403 and a body with 400', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    const readOnly = await keyWithScopes(tenant, ['products:read']);
    expectError(await api.post(`/products/${product.id}/archive`, { key: readOnly }), 403, 'authorization_error');
    expectError(
      await api.post(`/products/${product.id}/archive`, { key: tenant.merchant_secret_key, body: { status: 'x' } }),
      400,
      'validation_error',
    );
    expect((await get(tenant, product.id)).body.data.status).to.equal('active');
  });
});

describe('POST /api/v1/products/:id/unarchive', () => {
  it('returns 201 with status active', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant, { status: 'archived' });
    expect(expectWrapped(await post(tenant, product.id, 'unarchive'), 201).status).to.equal('active');
    expect((await get(tenant, product.id)).body.data.status).to.equal('active');
  });

  it('is idempotent on an active product', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant);
    expect(expectWrapped(await post(tenant, product.id, 'unarchive'), 201).status).to.equal('active');
  });

  it('returns 404 for a soft-deleted product', async () => {
    const tenant = await createTenant();
    const product = await createProduct(tenant, { status: 'archived' });
    await api.delete(`/products/${product.id}`, { key: tenant.merchant_secret_key });
    expectError(await post(tenant, product.id, 'unarchive'), 404);
  });
});
