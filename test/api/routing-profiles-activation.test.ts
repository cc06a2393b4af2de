/**
 * Document 3, routing-profile states: one active profile per (merchant, payment_method), 409 or
 * deactivate_conflicting in one transaction, under concurrency too; and the default-connector operation.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import {
  activities,
  createConnector,
  createProfile,
  getProfile,
  profilePath,
  profilesPath,
  sql,
  type ProfileData,
} from '../helpers/routing';

/**
 * Makes writes of profiles named slow-… sleep before they touch the row, so concurrent requests all pass the
 * service's own conflict check first and the partial unique index has to decide (the race path).
 */
async function withSlowWrites<T>(run: () => Promise<T>): Promise<T> {
  await sql(`create or replace function routing_test_slow() returns trigger language plpgsql as $$
    begin if new.name like 'slow-%' then perform pg_sleep(0.3); end if; return new; end $$`);
  await sql(
    'create trigger routing_test_slow before insert or update on routing_profiles for each row execute function routing_test_slow()',
  );
  try {
    return await run();
  } finally {
    await sql('drop trigger routing_test_slow on routing_profiles');
    await sql('drop function routing_test_slow()');
  }
}

const activeIds = async (merchantId: string, method: string): Promise<string[]> =>
  (
    await sql('select id from routing_profiles where merchant_id = ? and payment_method = ? and is_active', [
      merchantId,
      method,
    ])
  ).map((row) => row.id);

describe('Routing profiles: one active profile per payment method', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const patch = (id: string, body: Record<string, unknown>) =>
    api.patch(profilePath(tenant.merchant_id, id), { key: tenant.merchant_secret_key, body });

  it('refuses to create a second active profile for a method with 409 naming the active one, creating nothing', async () => {
    const active = await createProfile(tenant, { payment_method: 'pix', is_active: true });
    const res = await api.post(profilesPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      body: {
        name: 'Second',
        payment_method: 'pix',
        is_active: true,
        default_merchant_connector_id: active.default_merchant_connector_id,
      },
    });
    const error = expectError(res, 409, 'conflict_error', 'ROUTING_PROFILE_ACTIVE_CONFLICT');
    expect(error.details).to.deep.equal({ payment_method: 'pix', conflicting_profile_id: active.id });
    expect(
      (await sql('select count(*)::int as n from routing_profiles where merchant_id = ?', [tenant.merchant_id]))[0].n,
    ).to.equal(1);
  });

  it('creates an active profile with deactivate_conflicting, deactivating the previous one (version bumped)', async () => {
    const previous = await createProfile(tenant, { payment_method: 'pix', is_active: true });
    const next = await createProfile(tenant, { payment_method: 'pix', is_active: true, deactivate_conflicting: true });
    expect(next.is_active).to.equal(true);
    const old = await getProfile(tenant, previous.id);
    expect(old).to.include({ is_active: false, version: 2 });
    expect(await activeIds(tenant.merchant_id, 'pix')).to.deep.equal([next.id]);
  });

  it('lets different methods, including the * catch-all, each have an active profile', async () => {
    for (const method of ['*', 'pix', 'credit_card', 'debit_card'])
      await createProfile(tenant, { payment_method: method, is_active: true });
    const other = await createTenant();
    await createProfile(other, { payment_method: 'pix', is_active: true });
    expect(await activeIds(tenant.merchant_id, 'pix')).to.have.length(1);
  });

  it('answers 409 when PATCH activates a second profile without deactivate_conflicting, changing neither', async () => {
    const active = await createProfile(tenant, { payment_method: 'boleto', is_active: true });
    const idle = await createProfile(tenant, { payment_method: 'boleto' });
    const res = await patch(idle.id, { is_active: true, name: 'Should not stick' });
    expect(
      expectError(res, 409, 'conflict_error', 'ROUTING_PROFILE_ACTIVE_CONFLICT').details.conflicting_profile_id,
    ).to.equal(active.id);
    expect(await getProfile(tenant, idle.id)).to.deep.equal(idle);
    expect(await getProfile(tenant, active.id)).to.deep.equal(active);
    expectError(await patch(idle.id, { is_active: true, deactivate_conflicting: false }), 409, 'conflict_error');
  });

  it('activates with deactivate_conflicting true, deactivating the other in the same request and recording both changes', async () => {
    const active = await createProfile(tenant, { payment_method: 'boleto', is_active: true });
    const idle = await createProfile(tenant, { payment_method: 'boleto' });
    const res = await patch(idle.id, { is_active: true, deactivate_conflicting: true });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ is_active: true, version: 2 });
    expect(await getProfile(tenant, active.id)).to.include({ is_active: false, version: 2 });
    const entries = await activities(tenant.merchant_id, 'routing_profile.updated');
    expect(entries.map((entry) => entry.changes.routing_profile_id)).to.have.members([active.id, idle.id]);
    expect(
      entries.find((entry) => entry.changes.routing_profile_id === active.id)?.changes.deactivated_in_favour_of,
    ).to.equal(idle.id);
  });

  it('rolls the deactivation back when the activating request fails later in its transaction', async () => {
    const active = await createProfile(tenant, { payment_method: 'wallet', is_active: true });
    const idle = await createProfile(tenant, { payment_method: 'wallet', name: 'explode-on-activate' });
    // A trigger makes the activating UPDATE itself fail, after the conflicting profile was already deactivated.
    await sql(`create or replace function routing_test_explode() returns trigger language plpgsql as $$
      begin if new.name = 'explode-on-activate' and new.is_active then raise exception 'boom'; end if; return new; end $$`);
    await sql(
      'create trigger routing_test_explode before update on routing_profiles for each row execute function routing_test_explode()',
    );
    try {
      const res = await patch(idle.id, { is_active: true, deactivate_conflicting: true });
      expect(res.status).to.equal(500);
    } finally {
      await sql('drop trigger routing_test_explode on routing_profiles');
      await sql('drop function routing_test_explode()');
    }
    expect(await getProfile(tenant, active.id)).to.deep.equal(active);
    expect(await getProfile(tenant, idle.id)).to.deep.equal(idle);
    expect(await activities(tenant.merchant_id, 'routing_profile.updated')).to.be.empty;
  });

  it('treats moving an active profile to an occupied method as a conflict (409, or swap with deactivate_conflicting)', async () => {
    const pix = await createProfile(tenant, { payment_method: 'pix', is_active: true });
    const boleto = await createProfile(tenant, { payment_method: 'boleto', is_active: true });
    expectError(
      await patch(boleto.id, { payment_method: 'pix' }),
      409,
      'conflict_error',
      'ROUTING_PROFILE_ACTIVE_CONFLICT',
    );
    const res = await patch(boleto.id, { payment_method: 'pix', deactivate_conflicting: true });
    expect(res.body).to.include({ payment_method: 'pix', is_active: true });
    expect(await activeIds(tenant.merchant_id, 'pix')).to.deep.equal([boleto.id]);
    expect((await getProfile(tenant, pix.id)).is_active).to.equal(false);
  });

  it('ignores deactivate_conflicting when there is no conflict', async () => {
    const idle = await createProfile(tenant, { payment_method: 'credit_card' });
    const res = await patch(idle.id, { is_active: true, deactivate_conflicting: true });
    expect(res.body).to.include({ is_active: true, version: 2 });
    const again = await patch(idle.id, { is_active: true, deactivate_conflicting: true });
    expect(again.body.version).to.equal(2);
  });

  it('deactivates with is_active false, freeing the method for another profile', async () => {
    const active = await createProfile(tenant, { payment_method: 'pix', is_active: true });
    const idle = await createProfile(tenant, { payment_method: 'pix' });
    expect((await patch(active.id, { is_active: false })).body.is_active).to.equal(false);
    expect((await patch(idle.id, { is_active: true })).status).to.equal(200);
  });

  it('lets exactly one of several concurrent activations win; the others get 409 naming the winner', async () => {
    const profiles: ProfileData[] = [];
    for (let i = 0; i < 4; i += 1)
      profiles.push(await createProfile(tenant, { payment_method: 'debit_card', name: `slow-C${i}` }));
    const results = await withSlowWrites(() =>
      Promise.all(profiles.map((profile) => patch(profile.id, { is_active: true }))),
    );
    const winners = results.filter((res) => res.status === 200);
    expect(winners, results.map((res) => res.status).join()).to.have.length(1);
    for (const res of results.filter((r) => r.status !== 200)) {
      expect(
        expectError(res, 409, 'conflict_error', 'ROUTING_PROFILE_ACTIVE_CONFLICT').details.conflicting_profile_id,
      ).to.equal(winners[0].body.id);
    }
    expect(await activeIds(tenant.merchant_id, 'debit_card')).to.deep.equal([winners[0].body.id]);
  });

  it('lets exactly one of two concurrent active creates win', async () => {
    const connector = await createConnector(tenant.merchant_id);
    const body = {
      name: 'slow-Race',
      payment_method: 'wallet',
      is_active: true,
      default_merchant_connector_id: connector.id,
    };
    const results = await withSlowWrites(() =>
      Promise.all(
        [1, 2].map(() => api.post(profilesPath(tenant.merchant_id), { key: tenant.merchant_secret_key, body })),
      ),
    );
    expect(results.map((res) => res.status).sort()).to.deep.equal([201, 409]);
    expect(await activeIds(tenant.merchant_id, 'wallet')).to.have.length(1);
  });

  it('never leaves two active profiles when concurrent activations all send deactivate_conflicting', async () => {
    const profiles: ProfileData[] = [];
    for (let i = 0; i < 3; i += 1)
      profiles.push(await createProfile(tenant, { payment_method: 'credit_card', name: `slow-D${i}` }));
    const results = await withSlowWrites(() =>
      Promise.all(profiles.map((profile) => patch(profile.id, { is_active: true, deactivate_conflicting: true }))),
    );
    for (const res of results) expect([200, 409], res.text).to.include(res.status);
    expect(results.some((res) => res.status === 200)).to.equal(true);
    expect(await activeIds(tenant.merchant_id, 'credit_card')).to.have.length(1);
  });
});

describe('PATCH /api/v1/merchants/:merchant_id/routing-profiles/:profile_id/default-connector', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const setDefault = (profileId: string, body: unknown, key = tenant.merchant_secret_key) =>
    api.patch(`${profilePath(tenant.merchant_id, profileId)}/default-connector`, { key, body });

  it('answers 200 with the profile pointing at the new default, version bumped and the change recorded', async () => {
    const profile = await createProfile(tenant);
    const next = await createConnector(tenant.merchant_id);
    const res = await setDefault(profile.id, { merchant_connector_id: next.id });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ id: profile.id, default_merchant_connector_id: next.id, version: 2 });
    const [entry] = await activities(tenant.merchant_id, 'routing_profile.updated');
    expect(entry.changes.default_merchant_connector_id).to.deep.equal({
      from: profile.default_merchant_connector_id,
      to: next.id,
    });
  });

  it('rejects an inactive connector with 422 CONNECTOR_INACTIVE and keeps the old default', async () => {
    const profile = await createProfile(tenant);
    const inactive = await createConnector(tenant.merchant_id, { isActive: false });
    const error = expectError(
      await setDefault(profile.id, { merchant_connector_id: inactive.id }),
      422,
      'business_rule_error',
      'CONNECTOR_INACTIVE',
    );
    expect(error.details).to.deep.equal({ merchant_connector_id: inactive.id });
    expect(await getProfile(tenant, profile.id)).to.deep.equal(profile);
  });

  it("rejects another merchant's or an unknown connector with 400 naming merchant_connector_id", async () => {
    const profile = await createProfile(tenant);
    const foreign = await createConnector((await createTenant()).merchant_id);
    expectFieldErrors(await setDefault(profile.id, { merchant_connector_id: foreign.id }), ['merchant_connector_id']);
    expectFieldErrors(await setDefault(profile.id, { merchant_connector_id: 'conn_nope' }), ['merchant_connector_id']);
  });

  it('requires merchant_connector_id, never null, and nothing else', async () => {
    const profile = await createProfile(tenant);
    expectFieldErrors(await setDefault(profile.id, {}), ['merchant_connector_id']);
    expectFieldErrors(await setDefault(profile.id, { merchant_connector_id: null }), ['merchant_connector_id']);
    expectFieldErrors(
      await setDefault(profile.id, { merchant_connector_id: profile.default_merchant_connector_id, name: 'x' }),
      ['name'],
    );
  });

  it('leaves the version alone when the connector is already the default', async () => {
    const profile = await createProfile(tenant);
    const res = await setDefault(profile.id, { merchant_connector_id: profile.default_merchant_connector_id });
    expect(res.body.version).to.equal(1);
  });

  it("answers 404 for another merchant's profile, also with an organization key", async () => {
    const second = await addMerchant(tenant);
    const profile = await createProfile(tenant);
    const res = await api.patch(`${profilePath(second.merchantId, profile.id)}/default-connector`, {
      key: tenant.organization_secret_key,
      body: { merchant_connector_id: profile.default_merchant_connector_id },
    });
    expectError(res, 404, 'not_found_error');
  });
});
