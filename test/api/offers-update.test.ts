/** PATCH /offers/:id, DELETE /offers/:id and POST /offers/:id/restore (Document 2, "Offers"). */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { createFamily, createFamilyProduct, postOffer, rows } from '../helpers/offers';

describe('PATCH /api/v1/offers/:id', () => {
  let tenant: Tenant;
  let productId: string;
  beforeEach(async () => {
    tenant = await createTenant();
    productId = (await createFamilyProduct(tenant.merchant_id)).id;
  });
  const patch = (id: string, body: Record<string, unknown>, key = tenant.merchant_secret_key) =>
    api.patch(`/offers/${id}`, { key, body });

  it('updates offer-level fields and returns the offer with its prices unchanged', async () => {
    const offer = await postOffer(tenant, productId);
    const res = await patch(offer.id, {
      name: 'Renamed',
      slug: 'renamed',
      description: 'New text',
      cycle_limit: 6,
      setup_charge: true,
      renew_after_cycle_limit: true,
      billing_cycle: 'yearly',
      status: 'archived',
    });
    const updated = expectWrapped(res, 200);
    expect(updated).to.include({
      name: 'Renamed',
      slug: 'renamed',
      description: 'New text',
      cycle_limit: 6,
      setup_charge: true,
      renew_after_cycle_limit: true,
      billing_cycle: 'yearly',
      status: 'archived',
      product_id: productId,
    });
    expect(updated.prices).to.deep.equal(offer.prices);
    expect(Date.parse(updated.updated_at)).to.be.at.least(Date.parse(offer.updated_at));
  });

  it('leaves fields that are not sent unchanged and clears nullable ones sent as null', async () => {
    const offer = await postOffer(tenant, productId, { description: 'Keep me?', cycle_limit: 3 });
    const updated = expectWrapped(await patch(offer.id, { cycle_limit: null, description: null }), 200);
    expect(updated).to.include({ name: offer.name, slug: offer.slug, cycle_limit: null, description: null });
  });

  it('refuses prices and product_id with 400: prices have their own endpoints and the product is fixed', async () => {
    const offer = await postOffer(tenant, productId);
    expectFieldErrors(await patch(offer.id, { prices: [{ currency: 'EUR', amount: 1 }] }), ['prices']);
    expectFieldErrors(await patch(offer.id, { product_id: productId }), ['product_id']);
    const [row] = await rows('select count(*) as n from offer_prices where offer_id = ?', [offer.id]);
    expect(Number(row.n)).to.equal(2);
  });

  it('moves status between active and archived both ways', async () => {
    const offer = await postOffer(tenant, productId);
    expect(expectWrapped(await patch(offer.id, { status: 'archived' }), 200).status).to.equal('archived');
    expect(expectWrapped(await patch(offer.id, { status: 'active' }), 200).status).to.equal('active');
    expectFieldErrors(await patch(offer.id, { status: 'deleted' }), ['status']);
  });

  it('returns 409 OFFER_SLUG_TAKEN when another live offer of the product has the slug, and changes nothing', async () => {
    await postOffer(tenant, productId, { slug: 'taken' });
    const offer = await postOffer(tenant, productId, { slug: 'mine' });
    expectError(await patch(offer.id, { slug: 'taken', name: 'Changed' }), 409, 'conflict_error', 'OFFER_SLUG_TAKEN');
    const fetched = await api.get(`/offers/${offer.id}`, { key: tenant.merchant_secret_key });
    expect(fetched.body.data).to.include({ slug: 'mine', name: offer.name });
  });

  it('accepts its own slug and re-sending is_default true on the default offer', async () => {
    const offer = await postOffer(tenant, productId, { slug: 'same', is_default: true });
    expect(expectWrapped(await patch(offer.id, { slug: 'same', is_default: true }), 200)).to.include({
      slug: 'same',
      is_default: true,
    });
  });

  it('returns 409 OFFER_DEFAULT_EXISTS when making a second offer of the product default; unsetting the first then allows it', async () => {
    const first = await postOffer(tenant, productId, { is_default: true });
    const second = await postOffer(tenant, productId);
    const error = expectError(
      await patch(second.id, { is_default: true }),
      409,
      'conflict_error',
      'OFFER_DEFAULT_EXISTS',
    );
    expect(error.details.existing_offer_id).to.equal(first.id);
    expectWrapped(await patch(first.id, { is_default: false }), 200);
    expect(expectWrapped(await patch(second.id, { is_default: true }), 200).is_default).to.equal(true);
  });

  describe('billing terms', () => {
    it('leaving the custom cycle clears custom_billing_days; entering it requires them', async () => {
      const offer = await postOffer(tenant, productId, { billing_cycle: 'custom', custom_billing_days: 10 });
      expect(expectWrapped(await patch(offer.id, { billing_cycle: 'monthly' }), 200)).to.include({
        billing_cycle: 'monthly',
        custom_billing_days: null,
      });
      expectFieldErrors(await patch(offer.id, { billing_cycle: 'custom' }), ['custom_billing_days']);
      expect(
        expectWrapped(await patch(offer.id, { billing_cycle: 'custom', custom_billing_days: 20 }), 200),
      ).to.include({ custom_billing_days: 20 });
    });

    it('refuses custom_billing_days on a non-custom offer and null days on a custom one', async () => {
      const monthly = await postOffer(tenant, productId);
      expectFieldErrors(await patch(monthly.id, { custom_billing_days: 5 }), ['custom_billing_days']);
      const custom = await postOffer(tenant, productId, { billing_cycle: 'custom', custom_billing_days: 10 });
      expectFieldErrors(await patch(custom.id, { custom_billing_days: null }), ['custom_billing_days']);
    });

    it('turning free_trial off clears trial_days; turning it on requires them', async () => {
      const offer = await postOffer(tenant, productId, { free_trial: true, trial_days: 7 });
      expect(expectWrapped(await patch(offer.id, { trial_days: 14 }), 200).trial_days).to.equal(14);
      expect(expectWrapped(await patch(offer.id, { free_trial: false }), 200)).to.include({
        free_trial: false,
        trial_days: null,
      });
      expectFieldErrors(await patch(offer.id, { free_trial: true }), ['trial_days']);
      expectFieldErrors(await patch(offer.id, { trial_days: 3 }), ['trial_days']);
      expect(expectWrapped(await patch(offer.id, { free_trial: true, trial_days: 3 }), 200)).to.include({
        free_trial: true,
        trial_days: 3,
      });
    });
  });

  it('sets renewal_offer_id to an offer of the same family and refuses one from another family', async () => {
    const family = await createFamily(tenant.merchant_id);
    const basic = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id, family.id)).id);
    const pro = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id, family.id)).id);
    expect(expectWrapped(await patch(basic.id, { renewal_offer_id: pro.id }), 200).renewal_offer_id).to.equal(pro.id);
    const outsider = await postOffer(tenant, productId);
    expectFieldErrors(await patch(basic.id, { renewal_offer_id: outsider.id }), ['renewal_offer_id']);
    expect(expectWrapped(await patch(basic.id, { renewal_offer_id: null }), 200).renewal_offer_id).to.equal(null);
  });

  it("returns 404 for a deleted or another merchant's offer", async () => {
    const deleted = await postOffer(tenant, productId);
    await api.delete(`/offers/${deleted.id}`, { key: tenant.merchant_secret_key });
    const other = await createTenant();
    const foreign = await postOffer(other, (await createFamilyProduct(other.merchant_id)).id);
    for (const id of [deleted.id, foreign.id]) expectError(await patch(id, { name: 'x' }), 404, 'not_found_error');
    expect((await api.get(`/offers/${foreign.id}`, { key: other.merchant_secret_key })).body.data.name).to.equal(
      foreign.name,
    );
  });

  it('accepts an organization key with merchant_id in the query and refuses a key without offers:write', async () => {
    const offer = await postOffer(tenant, productId);
    const org = await api.patch(`/offers/${offer.id}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
      body: { name: 'Org' },
    });
    expect(expectWrapped(org, 200).name).to.equal('Org');
    expectError(
      await patch(offer.id, { name: 'x' }, await keyWithScopes(tenant, ['offers:read'])),
      403,
      'authorization_error',
    );
  });
});

describe('DELETE /api/v1/offers/:id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('returns 204 and soft-deletes the offer and its prices in the same instant (rows kept)', async () => {
    const offer = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id);
    const res = await api.delete(`/offers/${offer.id}`, { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    const [row] = await rows('select deleted_at from offers where id = ?', [offer.id]);
    const prices = await rows('select deleted_at from offer_prices where offer_id = ?', [offer.id]);
    expect(row.deleted_at).to.not.equal(null);
    expect(prices).to.have.length(2);
    for (const price of prices) expect(price.deleted_at).to.equal(row.deleted_at);
    expectError(await api.get(`/offers/${offer.id}`, { key: tenant.merchant_secret_key }), 404);
    expectError(await api.get(`/offer-prices/${offer.prices[0].id}`, { key: tenant.merchant_secret_key }), 404);
  });

  it("returns 404 for an already deleted, unknown or another merchant's offer", async () => {
    const offer = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id);
    await api.delete(`/offers/${offer.id}`, { key: tenant.merchant_secret_key });
    const other = await createTenant();
    const foreign = await postOffer(other, (await createFamilyProduct(other.merchant_id)).id);
    for (const id of [offer.id, 'ofr_doesnotexist0000000000', foreign.id]) {
      expectError(await api.delete(`/offers/${id}`, { key: tenant.merchant_secret_key }), 404, 'not_found_error');
    }
    expect((await api.get(`/offers/${foreign.id}`, { key: other.merchant_secret_key })).status).to.equal(200);
  });

  it('accepts an organization key with merchant_id in the query', async () => {
    const offer = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id)).id);
    const res = await api.delete(`/offers/${offer.id}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(res.status).to.equal(204);
  });
});

describe('POST /api/v1/offers/:id/restore', () => {
  let tenant: Tenant;
  let productId: string;
  beforeEach(async () => {
    tenant = await createTenant();
    productId = (await createFamilyProduct(tenant.merchant_id)).id;
  });
  const restore = (id: string, key = tenant.merchant_secret_key) => api.post(`/offers/${id}/restore`, { key });
  const remove = (path: string) => api.delete(path, { key: tenant.merchant_secret_key });

  it('returns 201 with the offer and the prices its delete removed, as they were', async () => {
    const offer = await postOffer(tenant, productId, { is_default: true });
    await remove(`/offers/${offer.id}`);
    const restored = expectWrapped(await restore(offer.id), 201);
    expect({ ...restored, updated_at: undefined }).to.deep.equal({
      ...offer,
      updated_at: undefined,
      prices: restored.prices,
    });
    expect(restored.prices.map((p: any) => ({ ...p, updated_at: undefined }))).to.deep.equal(
      offer.prices.map((p: any) => ({ ...p, updated_at: undefined })),
    );
    expect((await api.get(`/offers/${offer.id}`, { key: tenant.merchant_secret_key })).status).to.equal(200);
  });

  it('does not bring back a price that was deleted on its own before the offer', async () => {
    const offer = await postOffer(tenant, productId);
    const usd = offer.prices.find((p: any) => p.currency === 'USD');
    await remove(`/offer-prices/${usd.id}`);
    await remove(`/offers/${offer.id}`);
    const restored = expectWrapped(await restore(offer.id), 201);
    expect(restored.prices.map((p: any) => p.currency)).to.deep.equal(['BRL']);
  });

  it('returns 400 validation_error when the offer is not deleted', async () => {
    const offer = await postOffer(tenant, productId);
    expectError(await restore(offer.id), 400, 'validation_error');
  });

  it('returns 409 OFFER_SLUG_TAKEN when a live offer of the product took the slug meanwhile', async () => {
    const offer = await postOffer(tenant, productId, { slug: 'reused' });
    await remove(`/offers/${offer.id}`);
    await postOffer(tenant, productId, { slug: 'reused' });
    expectError(await restore(offer.id), 409, 'conflict_error', 'OFFER_SLUG_TAKEN');
    expectError(await api.get(`/offers/${offer.id}`, { key: tenant.merchant_secret_key }), 404);
  });

  it('returns 409 OFFER_DEFAULT_EXISTS when it was the default and the product has a default again', async () => {
    const offer = await postOffer(tenant, productId, { is_default: true });
    await remove(`/offers/${offer.id}`);
    await postOffer(tenant, productId, { is_default: true });
    expectError(await restore(offer.id), 409, 'conflict_error', 'OFFER_DEFAULT_EXISTS');
  });

  it('returns 400 when the product has been deleted meanwhile', async () => {
    const offer = await postOffer(tenant, productId);
    await remove(`/offers/${offer.id}`);
    await rows('update products set deleted_at = now() where id = ?', [productId]);
    expectFieldErrors(await restore(offer.id), ['product_id']);
  });

  it("returns 404 for an unknown or another merchant's offer", async () => {
    const other = await createTenant();
    const foreign = await postOffer(other, (await createFamilyProduct(other.merchant_id)).id);
    await api.delete(`/offers/${foreign.id}`, { key: other.merchant_secret_key });
    for (const id of ['ofr_doesnotexist0000000000', foreign.id]) expectError(await restore(id), 404, 'not_found_error');
  });

  it('accepts an organization key with merchant_id in the query and refuses a key without offers:write', async () => {
    const offer = await postOffer(tenant, productId);
    await remove(`/offers/${offer.id}`);
    expectError(await restore(offer.id, await keyWithScopes(tenant, ['offers:read'])), 403, 'authorization_error');
    const res = await api.post(`/offers/${offer.id}/restore`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expectWrapped(res, 201);
  });
});
