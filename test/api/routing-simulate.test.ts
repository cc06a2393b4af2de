/** POST .../routing-profiles/:profile_id/simulate (beyond the spec) and planRoute, the loader the charge workflow shares. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import {
  action,
  activities,
  addNode,
  condition,
  createConnector,
  createProfile,
  getProfile,
  nodesPath,
  profilePath,
  type ProfileData,
} from '../helpers/routing';
import { NoActiveRoutingProfileError, planRoute } from '../../domain/routing/routing.load';
import type { ChargeAttributes } from '../../domain/routing/routing.evaluate';

const SIMULATION_KEYS = [
  'profile_id',
  'profile_version',
  'payment_method',
  'random_draw',
  'matched_node_id',
  'plan',
  'skipped',
];

/** provider_a (default; no elo, no pix), provider_b (BRL/USD, elo, pix), provider_d (USD/EUR/GBP cards only). */
async function fixture(tenant: Tenant) {
  const a = await createConnector(tenant.merchant_id, { providerSlug: 'provider_a', name: 'A' });
  const b = await createConnector(tenant.merchant_id, { providerSlug: 'provider_b', name: 'B' });
  const d = await createConnector(tenant.merchant_id, { providerSlug: 'provider_d', name: 'D' });
  const profile = await createProfile(tenant, { default_merchant_connector_id: a.id, payment_method: 'credit_card' });
  const root = await addNode(tenant, profile.id, condition('currency', 'eq', 'BRL'));
  const toB = await addNode(
    tenant,
    profile.id,
    action(b.id, { parent_node_id: root.id, branch: 'then', require_3ds: 'if_supported' }),
  );
  const toD = await addNode(tenant, profile.id, action(d.id, { parent_node_id: root.id, branch: 'else' }));
  return { a, b, d, profile, root, toB, toD };
}

describe('POST /api/v1/merchants/:merchant_id/routing-profiles/:profile_id/simulate', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const simulate = (profile: ProfileData, body: Record<string, unknown>, key = tenant.merchant_secret_key) =>
    api.post(`${profilePath(tenant.merchant_id, profile.id)}/simulate`, { key, body });

  it('returns the plan: the matched action, the fallback chain, the default, and why connectors were skipped', async () => {
    const { a, b, d, profile, toB, toD } = await fixture(tenant);
    const res = await simulate(profile, { currency: 'BRL', amount: 1000, card_brand: 'visa', random_draw: 0.5 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(SIMULATION_KEYS);
    expect(res.body).to.include({
      profile_id: profile.id,
      profile_version: 4,
      payment_method: 'credit_card',
      random_draw: 0.5,
      matched_node_id: toB.id,
    });
    expect(res.body.plan).to.deep.equal([
      {
        merchant_connector_id: b.id,
        connector_name: 'B',
        provider_slug: 'provider_b',
        node_id: toB.id,
        require_3ds: 'if_supported',
        // provider_b (Adyen's dialect) runs 3-D Secure, so if_supported asks it.
        three_ds_requested: true,
        reason: 'matched',
      },
      {
        merchant_connector_id: a.id,
        connector_name: 'A',
        provider_slug: 'provider_a',
        node_id: null,
        require_3ds: 'never',
        three_ds_requested: false,
        reason: 'default',
      },
    ]);
    expect(res.body.skipped).to.deep.equal([
      { merchant_connector_id: d.id, node_id: toD.id, reason: 'unsupported_currency' },
    ]);
  });

  it('takes the else branch for another currency and keeps the then-branch action as a fallback', async () => {
    const { a, b, d, profile, toD } = await fixture(tenant);
    const res = await simulate(profile, { currency: 'USD', amount: 1000, card_brand: 'mastercard' });
    expect(res.body.matched_node_id).to.equal(toD.id);
    expect(res.body.plan.map((step: any) => [step.merchant_connector_id, step.reason])).to.deep.equal([
      [d.id, 'matched'],
      [b.id, 'fallback'],
      [a.id, 'default'],
    ]);
  });

  it('skips connectors that cannot take the card brand, inactive ones and brands narrowed by config.card_brands', async () => {
    const { a, b, d, profile } = await fixture(tenant);
    const elo = await simulate(profile, { currency: 'BRL', amount: 1000, card_brand: 'elo' });
    expect(elo.body.plan.map((step: any) => step.merchant_connector_id)).to.deep.equal([b.id]);
    expect(elo.body.skipped).to.deep.include({
      merchant_connector_id: a.id,
      node_id: null,
      reason: 'unsupported_card_brand',
    });

    const narrowed = await createConnector(tenant.merchant_id, {
      providerSlug: 'provider_b',
      config: { card_brands: ['visa'] },
    });
    const inactive = await createConnector(tenant.merchant_id, { providerSlug: 'provider_b', isActive: false });
    await addNode(tenant, profile.id, action(narrowed.id, { position: 0 }));
    await addNode(tenant, profile.id, action(inactive.id, { position: 0 }));
    const res = await simulate(profile, { currency: 'BRL', amount: 1000, card_brand: 'mastercard' });
    expect(res.body.plan.map((step: any) => step.merchant_connector_id)).to.deep.equal([b.id, a.id]);
    expect(res.body.skipped.map((skip: any) => [skip.merchant_connector_id, skip.reason])).to.deep.equal([
      [inactive.id, 'inactive'],
      [narrowed.id, 'unsupported_card_brand'],
      [d.id, 'unsupported_currency'],
    ]);
  });

  it('routes a math/random split by random_draw, and draws one itself when absent', async () => {
    const a = await createConnector(tenant.merchant_id, { providerSlug: 'provider_a' });
    const c = await createConnector(tenant.merchant_id, { providerSlug: 'checkout' });
    const profile = await createProfile(tenant, { default_merchant_connector_id: a.id });
    const split = await addNode(tenant, profile.id, condition('math/random', 'lt', 0.3));
    const low = await addNode(tenant, profile.id, action(c.id, { parent_node_id: split.id, branch: 'then' }));
    const high = await addNode(tenant, profile.id, action(a.id, { parent_node_id: split.id, branch: 'else' }));
    const body = { payment_method: 'credit_card', currency: 'USD', amount: 500 };
    expect((await simulate(profile, { ...body, random_draw: 0.29 })).body.matched_node_id).to.equal(low.id);
    expect((await simulate(profile, { ...body, random_draw: 0.3 })).body.matched_node_id).to.equal(high.id);
    const drawn = await simulate(profile, body);
    expect(drawn.body.random_draw).to.be.a('number').within(0, 0.999999);
    expect(drawn.body.matched_node_id).to.equal(drawn.body.random_draw < 0.3 ? low.id : high.id);
  });

  it('reflects a reorder in the very next simulation', async () => {
    const a = await createConnector(tenant.merchant_id, { providerSlug: 'provider_a' });
    const c = await createConnector(tenant.merchant_id, { providerSlug: 'checkout' });
    const profile = await createProfile(tenant, { default_merchant_connector_id: a.id, payment_method: 'wallet' });
    const first = await addNode(tenant, profile.id, action(a.id));
    const second = await addNode(tenant, profile.id, action(c.id, { position: 1 }));
    expect((await simulate(profile, { currency: 'USD', amount: 1 })).body.matched_node_id).to.equal(first.id);
    await api.patch(`${nodesPath(tenant.merchant_id, profile.id)}/reorder`, {
      key: tenant.merchant_secret_key,
      body: { ordered_node_ids: [second.id, first.id] },
    });
    const res = await simulate(profile, { currency: 'USD', amount: 1 });
    expect(res.body.matched_node_id).to.equal(second.id);
    expect(res.body.plan.map((step: any) => step.merchant_connector_id)).to.deep.equal([c.id, a.id]);
  });

  it('skips a card-only connector for pix and works on inactive profiles', async () => {
    const a = await createConnector(tenant.merchant_id, { providerSlug: 'provider_a' });
    const b = await createConnector(tenant.merchant_id, { providerSlug: 'provider_b' });
    const profile = await createProfile(tenant, { default_merchant_connector_id: b.id });
    await addNode(tenant, profile.id, action(a.id));
    const res = await simulate(profile, { payment_method: 'pix', currency: 'BRL', amount: 5000 });
    expect(profile.is_active).to.equal(false);
    expect(res.body.plan.map((step: any) => [step.merchant_connector_id, step.reason])).to.deep.equal([
      [b.id, 'default'],
    ]);
    expect(res.body.skipped[0]).to.include({ merchant_connector_id: a.id, reason: 'unsupported_payment_method' });
  });

  it("requires payment_method for a * profile and refuses one that differs from the profile's method", async () => {
    const star = await createProfile(tenant);
    expectFieldErrors(await simulate(star, { currency: 'BRL', amount: 1 }), ['payment_method']);
    const pix = await createProfile(tenant, { payment_method: 'pix' });
    expectFieldErrors(await simulate(pix, { payment_method: 'boleto', currency: 'BRL', amount: 1 }), [
      'payment_method',
    ]);
    expect((await simulate(pix, { currency: 'BRL', amount: 1 })).body.payment_method).to.equal('pix');
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['a missing currency', { currency: undefined }, 'currency'],
    ['a two-letter currency', { currency: 'BR' }, 'currency'],
    ['a negative amount', { amount: -1 }, 'amount'],
    ['a decimal amount', { amount: 1.5 }, 'amount'],
    ['random_draw of 1', { random_draw: 1 }, 'random_draw'],
    ['a negative random_draw', { random_draw: -0.1 }, 'random_draw'],
    ['installments of 0', { installments: 0 }, 'installments'],
    ['an invalid bin_country', { bin_country: 'ZZ' }, 'bin_country'],
    ['payment_method *', { payment_method: '*' }, 'payment_method'],
    ['an unknown field', { customer_id: 'cust_1' }, 'customer_id'],
  ];
  for (const [what, overrides, field] of invalid) {
    it(`rejects ${what} with 400`, async () => {
      const profile = await createProfile(tenant);
      const body: Record<string, unknown> = {
        payment_method: 'credit_card',
        currency: 'BRL',
        amount: 100,
        ...overrides,
      };
      for (const [name, value] of Object.entries(body)) if (value === undefined) delete body[name];
      expectFieldErrors(await simulate(profile, body), [field]);
    });
  }

  it('changes nothing: same version, no activity', async () => {
    const profile = await createProfile(tenant);
    await simulate(profile, { payment_method: 'credit_card', currency: 'BRL', amount: 1 });
    expect((await getProfile(tenant, profile.id)).version).to.equal(1);
    expect(await activities(tenant.merchant_id, 'routing_profile.updated')).to.be.empty;
  });

  it("answers 404 for another merchant's profile and needs routing:read (not connectors:read)", async () => {
    const other = await createTenant();
    const foreign = await createProfile(other);
    expectError(await simulate(foreign, { payment_method: 'pix', currency: 'BRL', amount: 1 }), 404, 'not_found_error');
    const own = await createProfile(tenant);
    const body = { payment_method: 'pix', currency: 'BRL', amount: 1 };
    expect((await simulate(own, body, await keyWithScopes(tenant, ['routing:read']))).status).to.equal(200);
    expectError(
      await simulate(own, body, await keyWithScopes(tenant, ['connectors:read'])),
      403,
      'authorization_error',
    );
    expect((await simulate(own, body, tenant.organization_secret_key)).status).to.equal(200);
  });
});

describe('planRoute (the charge workflow entry point)', () => {
  const charge = (overrides: Partial<ChargeAttributes> = {}): ChargeAttributes => ({
    paymentMethod: 'credit_card',
    currency: 'BRL',
    amount: 1000,
    cardBrand: 'visa',
    binCountry: 'BR',
    isRecurring: false,
    installments: 1,
    randomDraw: 0.5,
    ...overrides,
  });
  const plan = (merchantId: string, overrides: Partial<ChargeAttributes> = {}) =>
    planRoute(stack().orm.em.fork(), merchantId, charge(overrides));

  it("uses the active profile for the charge's exact method before the active * profile", async () => {
    const tenant = await createTenant();
    const a = await createConnector(tenant.merchant_id, { providerSlug: 'provider_a' });
    const b = await createConnector(tenant.merchant_id, { providerSlug: 'provider_b' });
    const star = await createProfile(tenant, { default_merchant_connector_id: a.id, is_active: true });
    const cards = await createProfile(tenant, {
      default_merchant_connector_id: b.id,
      payment_method: 'credit_card',
      is_active: true,
    });
    await createProfile(tenant, { default_merchant_connector_id: a.id, payment_method: 'debit_card' });
    const exact = await plan(tenant.merchant_id);
    expect(exact).to.deep.include({ profileId: cards.id, profileVersion: 1 });
    expect(exact.plan.attempts.map((attempt) => attempt.connectorId)).to.deep.equal([b.id]);
    expect((await plan(tenant.merchant_id, { paymentMethod: 'debit_card' })).profileId).to.equal(star.id);
  });

  it('throws NoActiveRoutingProfileError when neither the method nor * has an active profile', async () => {
    const tenant = await createTenant();
    await createProfile(tenant, { payment_method: 'pix' });
    try {
      await plan(tenant.merchant_id, { paymentMethod: 'pix' });
      expect.fail('planRoute should have thrown');
    } catch (error) {
      expect(error).to.be.instanceOf(NoActiveRoutingProfileError);
      expect((error as NoActiveRoutingProfileError).code).to.equal('NO_ACTIVE_ROUTING_PROFILE');
    }
  });

  it('produces the same plan as simulate for the same charge and draw', async () => {
    const tenant = await createTenant();
    const { profile } = await fixture(tenant);
    await api.patch(profilePath(tenant.merchant_id, profile.id), {
      key: tenant.merchant_secret_key,
      body: { is_active: true },
    });
    const simulated = await api.post(`${profilePath(tenant.merchant_id, profile.id)}/simulate`, {
      key: tenant.merchant_secret_key,
      body: { currency: 'USD', amount: 1000, card_brand: 'visa', bin_country: 'BR', random_draw: 0.5 },
    });
    const planned = await plan(tenant.merchant_id, { currency: 'USD' });
    expect(planned.profileVersion).to.equal(simulated.body.profile_version);
    expect(planned.plan.attempts.map((attempt) => [attempt.connectorId, attempt.nodeId, attempt.reason])).to.deep.equal(
      simulated.body.plan.map((step: any) => [step.merchant_connector_id, step.node_id, step.reason]),
    );
  });
});
