/** Offer transition endpoints and the effective change-charge behaviour (Document 2, "Offer transition"). */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { createFamily, createFamilyProduct, createProduct, postOffer, TRANSITION_KEYS } from '../helpers/offers';

/** Two offers (basic, pro) on two products of one family with the given default behaviour. */
async function familyPair(tenant: Tenant, behavior: 'next_renew' | 'prorated' | 'override' = 'next_renew') {
  const family = await createFamily(tenant.merchant_id, behavior);
  const basic = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id, family.id)).id);
  const pro = await postOffer(tenant, (await createFamilyProduct(tenant.merchant_id, family.id)).id);
  return { family, basic, pro };
}

const post = (tenant: Tenant, body: Record<string, unknown>, key = tenant.merchant_secret_key) =>
  api.post('/offer-transitions', { key, body });

async function postTransition(tenant: Tenant, body: Record<string, unknown>): Promise<any> {
  return expectWrapped(await post(tenant, body), 201);
}

describe('POST /api/v1/offer-transitions', () => {
  let tenant: Tenant;
  let basic: any;
  let pro: any;
  beforeEach(async () => {
    tenant = await createTenant();
    ({ basic, pro } = await familyPair(tenant));
  });

  it('returns 201 with the transition; is_active defaults to true and change_charge_behavior to null', async () => {
    const transition = await postTransition(tenant, { from_offer_id: basic.id, to_offer_id: pro.id });
    expect(Object.keys(transition).sort()).to.deep.equal([...TRANSITION_KEYS].sort());
    expect(transition.id).to.match(/^oft_/);
    expect(transition).to.include({
      from_offer_id: basic.id,
      to_offer_id: pro.id,
      change_charge_behavior: null,
      is_active: true,
    });
  });

  it('stores a behaviour and is_active false when given; the reverse pair is a different transition', async () => {
    const up = await postTransition(tenant, {
      from_offer_id: basic.id,
      to_offer_id: pro.id,
      change_charge_behavior: 'prorated',
      is_active: false,
    });
    expect(up).to.include({ change_charge_behavior: 'prorated', is_active: false });
    expect(
      await postTransition(tenant, {
        from_offer_id: pro.id,
        to_offer_id: basic.id,
        change_charge_behavior: 'override',
      }),
    ).to.include({ change_charge_behavior: 'override' });
  });

  it('returns 409 OFFER_TRANSITION_ALREADY_EXISTS with details from_offer_id and to_offer_id for an existing pair', async () => {
    await postTransition(tenant, { from_offer_id: basic.id, to_offer_id: pro.id });
    const error = expectError(
      await post(tenant, { from_offer_id: basic.id, to_offer_id: pro.id, change_charge_behavior: 'override' }),
      409,
      'conflict_error',
      'OFFER_TRANSITION_ALREADY_EXISTS',
    );
    expect(error.details).to.deep.equal({ from_offer_id: basic.id, to_offer_id: pro.id });
  });

  it('returns 400 validation_error when the ids are equal', async () => {
    expectFieldErrors(await post(tenant, { from_offer_id: basic.id, to_offer_id: basic.id }), ['to_offer_id']);
  });

  it("returns 400 validation_error when an offer does not exist, is deleted or is another merchant's", async () => {
    const other = await createTenant();
    const foreign = (await familyPair(other)).basic;
    await api.delete(`/offers/${pro.id}`, { key: tenant.merchant_secret_key });
    expectFieldErrors(await post(tenant, { from_offer_id: 'ofr_doesnotexist0000000000', to_offer_id: basic.id }), [
      'from_offer_id',
    ]);
    expectFieldErrors(await post(tenant, { from_offer_id: basic.id, to_offer_id: pro.id }), ['to_offer_id']);
    expectFieldErrors(await post(tenant, { from_offer_id: basic.id, to_offer_id: foreign.id }), ['to_offer_id']);
  });

  it('returns 400 validation_error when the offers are in different families or have no family', async () => {
    const elsewhere = (await familyPair(tenant)).basic;
    expectFieldErrors(await post(tenant, { from_offer_id: basic.id, to_offer_id: elsewhere.id }), ['to_offer_id']);
    const standalone = await createProduct(tenant.merchant_id);
    const [a, b] = [await postOffer(tenant, standalone.id), await postOffer(tenant, standalone.id)];
    expectFieldErrors(await post(tenant, { from_offer_id: a.id, to_offer_id: b.id }), ['from_offer_id']);
    expectFieldErrors(await post(tenant, { from_offer_id: basic.id, to_offer_id: a.id }), ['to_offer_id']);
  });

  it('rejects missing ids, an unknown behaviour and unknown fields with 400', async () => {
    expectFieldErrors(await post(tenant, { to_offer_id: pro.id }), ['from_offer_id']);
    expectFieldErrors(
      await post(tenant, { from_offer_id: basic.id, to_offer_id: pro.id, change_charge_behavior: 'immediate' }),
      ['change_charge_behavior'],
    );
    expectFieldErrors(await post(tenant, { from_offer_id: basic.id, to_offer_id: pro.id, is_active: 'yes' }), [
      'is_active',
    ]);
    expectFieldErrors(await post(tenant, { from_offer_id: basic.id, to_offer_id: pro.id, family_id: 'x' }), [
      'family_id',
    ]);
  });

  it('replays with 200 for the same Idempotency-Key', async () => {
    const options = {
      key: tenant.merchant_secret_key,
      body: { from_offer_id: basic.id, to_offer_id: pro.id },
      headers: { 'Idempotency-Key': `oft-${Date.now()}` },
    };
    const first = await api.post('/offer-transitions', options);
    const again = await api.post('/offer-transitions', options);
    expect([first.status, again.status]).to.deep.equal([201, 200]);
    expect(again.body.data).to.deep.equal(first.body.data);
  });

  it('accepts an organization key with merchant_id in the body and refuses a key without offers:write', async () => {
    const res = await post(
      tenant,
      { from_offer_id: basic.id, to_offer_id: pro.id, merchant_id: tenant.merchant_id },
      tenant.organization_secret_key,
    );
    expectWrapped(res, 201);
    expectError(
      await post(
        tenant,
        { from_offer_id: pro.id, to_offer_id: basic.id },
        await keyWithScopes(tenant, ['offers:read']),
      ),
      403,
      'authorization_error',
    );
  });
});

describe('GET /api/v1/offer-transitions', () => {
  it('lists newest first and filters by from_offer_id, to_offer_id, is_active and change_charge_behavior', async () => {
    const tenant = await createTenant();
    const { basic, pro } = await familyPair(tenant);
    const up = await postTransition(tenant, {
      from_offer_id: basic.id,
      to_offer_id: pro.id,
      change_charge_behavior: 'prorated',
    });
    const down = await postTransition(tenant, { from_offer_id: pro.id, to_offer_id: basic.id, is_active: false });
    const list = async (query: Record<string, any> = {}) =>
      expectWrapped(await api.get('/offer-transitions', { key: tenant.merchant_secret_key, query }), 200, {
        list: true,
      }).map((t: any) => t.id);
    expect(await list()).to.deep.equal([down.id, up.id]);
    expect(await list({ from_offer_id: basic.id })).to.deep.equal([up.id]);
    expect(await list({ to_offer_id: basic.id })).to.deep.equal([down.id]);
    expect(await list({ is_active: false })).to.deep.equal([down.id]);
    expect(await list({ change_charge_behavior: 'prorated,override' })).to.deep.equal([up.id]);
    expect(await list({ page: 2, limit: 1 })).to.deep.equal([up.id]);
  });

  it("never lists another merchant's transitions; accepts an organization key with merchant_id; 400 on bad filters", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const { basic, pro } = await familyPair(other);
    await postTransition(other, { from_offer_id: basic.id, to_offer_id: pro.id });
    expect((await api.get('/offer-transitions', { key: tenant.merchant_secret_key })).body.data).to.deep.equal([]);
    const org = await api.get('/offer-transitions', {
      key: other.organization_secret_key,
      query: { merchant_id: other.merchant_id },
    });
    expect(expectWrapped(org, 200, { list: true })).to.have.length(1);
    expectFieldErrors(
      await api.get('/offer-transitions', {
        key: tenant.merchant_secret_key,
        query: { change_charge_behavior: 'later' },
      }),
      ['change_charge_behavior'],
    );
  });
});

describe('GET /api/v1/offer-transitions/:id', () => {
  it("returns the transition; 404 for unknown ids and another merchant's transition", async () => {
    const tenant = await createTenant();
    const { basic, pro } = await familyPair(tenant);
    const created = await postTransition(tenant, { from_offer_id: basic.id, to_offer_id: pro.id });
    expect(
      expectWrapped(await api.get(`/offer-transitions/${created.id}`, { key: tenant.merchant_secret_key }), 200),
    ).to.deep.equal(created);
    const other = await createTenant();
    expectError(
      await api.get(`/offer-transitions/${created.id}`, { key: other.merchant_secret_key }),
      404,
      'not_found_error',
    );
    expectError(
      await api.get('/offer-transitions/oft_doesnotexist0000000000', { key: tenant.merchant_secret_key }),
      404,
      'not_found_error',
    );
  });
});

describe('PATCH /api/v1/offer-transitions/:id', () => {
  let tenant: Tenant;
  let transition: any;
  beforeEach(async () => {
    tenant = await createTenant();
    const { basic, pro } = await familyPair(tenant);
    transition = await postTransition(tenant, {
      from_offer_id: basic.id,
      to_offer_id: pro.id,
      change_charge_behavior: 'prorated',
    });
  });
  const patch = (body: Record<string, unknown>, key = tenant.merchant_secret_key) =>
    api.patch(`/offer-transitions/${transition.id}`, { key, body });

  it('updates change_charge_behavior (to a value or null) and is_active', async () => {
    expect(expectWrapped(await patch({ change_charge_behavior: 'override', is_active: false }), 200)).to.include({
      change_charge_behavior: 'override',
      is_active: false,
    });
    expect(expectWrapped(await patch({ change_charge_behavior: null }), 200)).to.include({
      change_charge_behavior: null,
      is_active: false,
    });
  });

  it('refuses from_offer_id or to_offer_id with 400: the pair is immutable', async () => {
    expectFieldErrors(await patch({ from_offer_id: transition.to_offer_id }), ['from_offer_id']);
    expectFieldErrors(await patch({ to_offer_id: transition.from_offer_id }), ['to_offer_id']);
    expectFieldErrors(await patch({ change_charge_behavior: 'sometimes' }), ['change_charge_behavior']);
  });

  it("returns 404 for another merchant's transition and refuses a key without offers:write", async () => {
    const other = await createTenant();
    expectError(await patch({ is_active: false }, other.merchant_secret_key), 404, 'not_found_error');
    expectError(
      await patch({ is_active: false }, await keyWithScopes(tenant, ['offers:read'])),
      403,
      'authorization_error',
    );
  });
});

describe('DELETE /api/v1/offer-transitions/:id', () => {
  it('returns 204 and removes the transition; the pair may be created again', async () => {
    const tenant = await createTenant();
    const { basic, pro } = await familyPair(tenant);
    const transition = await postTransition(tenant, { from_offer_id: basic.id, to_offer_id: pro.id });
    const other = await createTenant();
    expectError(await api.delete(`/offer-transitions/${transition.id}`, { key: other.merchant_secret_key }), 404);
    const res = await api.delete(`/offer-transitions/${transition.id}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(res.status).to.equal(204);
    expectError(await api.get(`/offer-transitions/${transition.id}`, { key: tenant.merchant_secret_key }), 404);
    await postTransition(tenant, { from_offer_id: basic.id, to_offer_id: pro.id });
  });
});

describe('GET /api/v1/offer-transitions/effective-behavior', () => {
  let tenant: Tenant;
  let family: any;
  let basic: any;
  let pro: any;
  beforeEach(async () => {
    tenant = await createTenant();
    ({ family, basic, pro } = await familyPair(tenant, 'prorated'));
  });
  const effective = (query: Record<string, string>, key = tenant.merchant_secret_key) =>
    api.get('/offer-transitions/effective-behavior', { key, query });
  const pair = () => ({ from_offer_id: basic.id, to_offer_id: pro.id });

  it('uses the family behaviour when no transition exists', async () => {
    expect(expectWrapped(await effective(pair()), 200)).to.deep.equal({
      from_offer_id: basic.id,
      to_offer_id: pro.id,
      change_charge_behavior: 'prorated',
      source: 'family',
      offer_transition_id: null,
      product_family_id: family.id,
    });
  });

  it("applies an active transition's behaviour", async () => {
    const transition = await postTransition(tenant, { ...pair(), change_charge_behavior: 'override' });
    expect(expectWrapped(await effective(pair()), 200)).to.include({
      change_charge_behavior: 'override',
      source: 'transition',
      offer_transition_id: transition.id,
    });
  });

  it('falls back to the family for an inactive transition or a null behaviour, and after the transition is deleted', async () => {
    const transition = await postTransition(tenant, {
      ...pair(),
      change_charge_behavior: 'override',
      is_active: false,
    });
    expect(expectWrapped(await effective(pair()), 200)).to.include({
      change_charge_behavior: 'prorated',
      source: 'family',
      offer_transition_id: transition.id,
    });
    await api.patch(`/offer-transitions/${transition.id}`, {
      key: tenant.merchant_secret_key,
      body: { is_active: true, change_charge_behavior: null },
    });
    expect(expectWrapped(await effective(pair()), 200)).to.include({
      change_charge_behavior: 'prorated',
      source: 'family',
    });
    await api.delete(`/offer-transitions/${transition.id}`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(await effective(pair()), 200)).to.include({ source: 'family', offer_transition_id: null });
  });

  it('is directional: a transition for the reverse pair does not apply', async () => {
    await postTransition(tenant, { from_offer_id: pro.id, to_offer_id: basic.id, change_charge_behavior: 'override' });
    expect(expectWrapped(await effective(pair()), 200)).to.include({
      change_charge_behavior: 'prorated',
      source: 'family',
    });
  });

  it("returns 400 for equal ids, unknown or another merchant's offers, different families and missing parameters", async () => {
    const other = await createTenant();
    const foreign = (await familyPair(other)).basic;
    const elsewhere = (await familyPair(tenant)).basic;
    expectFieldErrors(await effective({ from_offer_id: basic.id, to_offer_id: basic.id }), ['to_offer_id']);
    expectFieldErrors(await effective({ from_offer_id: 'ofr_doesnotexist0000000000', to_offer_id: pro.id }), [
      'from_offer_id',
    ]);
    expectFieldErrors(await effective({ from_offer_id: basic.id, to_offer_id: foreign.id }), ['to_offer_id']);
    expectFieldErrors(await effective({ from_offer_id: basic.id, to_offer_id: elsewhere.id }), ['to_offer_id']);
    expectFieldErrors(await effective({ from_offer_id: basic.id }), ['to_offer_id']);
  });

  it('accepts an organization key with merchant_id and refuses a key without offers:read', async () => {
    const org = await effective({ ...pair(), merchant_id: tenant.merchant_id }, tenant.organization_secret_key);
    expect(expectWrapped(org, 200).source).to.equal('family');
    expectError(await effective(pair(), await keyWithScopes(tenant, ['products:read'])), 403, 'authorization_error');
  });
});
