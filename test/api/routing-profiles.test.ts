/** Routing profiles CRUD (Document 3, "Routing profiles"): bare responses, flat list meta, both key kinds. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, ISO_UTC_MS } from '../helpers/envelope';
import {
  action,
  activities,
  addNode,
  createConnector,
  createProfile,
  getProfile,
  profilePath,
  profilesPath,
  sql,
} from '../helpers/routing';

const PROFILE_KEYS = [
  'id',
  'merchant_id',
  'name',
  'is_active',
  'version',
  'payment_method',
  'default_merchant_connector_id',
  'optimize',
  'created_at',
  'updated_at',
];

describe('POST /api/v1/merchants/:merchant_id/routing-profiles', () => {
  let tenant: Tenant;
  let connectorId: string;
  beforeEach(async () => {
    tenant = await createTenant();
    connectorId = (await createConnector(tenant.merchant_id)).id;
  });
  const post = (body: Record<string, unknown>, key = tenant.merchant_secret_key) =>
    api.post(profilesPath(tenant.merchant_id), { key, body });
  const count = async () =>
    (await sql('select count(*)::int as n from routing_profiles where merchant_id = ?', [tenant.merchant_id]))[0].n;

  it('returns 201 with the bare profile: inactive, payment_method *, version 1 by default', async () => {
    const res = await post({ name: 'Cards', default_merchant_connector_id: connectorId });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.have.all.keys(PROFILE_KEYS);
    expect(res.body.id).to.match(/^rp_/);
    expect(res.body).to.include({
      merchant_id: tenant.merchant_id,
      name: 'Cards',
      is_active: false,
      version: 1,
      payment_method: '*',
      default_merchant_connector_id: connectorId,
    });
    expect(res.body.created_at).to.match(ISO_UTC_MS);
    expect(res.body.updated_at).to.match(ISO_UTC_MS);
  });

  for (const method of ['credit_card', 'debit_card', 'pix', 'boleto', 'wallet', '*']) {
    it(`accepts payment_method ${method}`, async () => {
      const res = await post({
        name: 'P',
        payment_method: method,
        default_merchant_connector_id: connectorId,
        is_active: true,
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include({ payment_method: method, is_active: true });
    });
  }

  it('accepts an organization key for a merchant of its organization (merchant in the path)', async () => {
    const res = await post(
      { name: 'Org made', default_merchant_connector_id: connectorId },
      tenant.organization_secret_key,
    );
    expect(res.status, res.text).to.equal(201);
    expect(res.body.merchant_id).to.equal(tenant.merchant_id);
  });

  it('accepts an inactive connector as the default (create does not check is_active)', async () => {
    const inactive = await createConnector(tenant.merchant_id, { isActive: false });
    const res = await post({ name: 'P', default_merchant_connector_id: inactive.id });
    expect(res.status, res.text).to.equal(201);
  });

  it("rejects another merchant's connector as the default with 400 naming the field, creating nothing", async () => {
    const other = await createTenant();
    const foreign = await createConnector(other.merchant_id);
    expectFieldErrors(await post({ name: 'P', default_merchant_connector_id: foreign.id }), [
      'default_merchant_connector_id',
    ]);
    expectFieldErrors(await post({ name: 'P', default_merchant_connector_id: 'conn_doesnotexist' }), [
      'default_merchant_connector_id',
    ]);
    expect(await count()).to.equal(0);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['no name', { name: undefined }, 'name'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a name over 100 characters', { name: 'x'.repeat(101) }, 'name'],
    ['no default_merchant_connector_id', { default_merchant_connector_id: undefined }, 'default_merchant_connector_id'],
    ['a null default_merchant_connector_id', { default_merchant_connector_id: null }, 'default_merchant_connector_id'],
    [
      'a malformed default_merchant_connector_id',
      { default_merchant_connector_id: 'abc' },
      'default_merchant_connector_id',
    ],
    ['an unknown payment_method', { payment_method: 'card' }, 'payment_method'],
    ['a non-boolean is_active', { is_active: 'yes' }, 'is_active'],
    ['an unknown field', { priority: 1 }, 'priority'],
  ];
  for (const [what, overrides, field] of invalid) {
    it(`rejects ${what} with 400 and creates nothing`, async () => {
      const body: Record<string, unknown> = { name: 'P', default_merchant_connector_id: connectorId, ...overrides };
      for (const [name, value] of Object.entries(body)) if (value === undefined) delete body[name];
      expectFieldErrors(await post(body), [field]);
      expect(await count()).to.equal(0);
    });
  }

  it('replays an idempotent create with 200 and the same body, creating one profile', async () => {
    const headers = { 'idempotency-key': `rp-${Date.now()}` };
    const body = { name: 'Once', default_merchant_connector_id: connectorId };
    const first = await api.post(profilesPath(tenant.merchant_id), { key: tenant.merchant_secret_key, body, headers });
    const again = await api.post(profilesPath(tenant.merchant_id), { key: tenant.merchant_secret_key, body, headers });
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    expect(await count()).to.equal(1);
  });

  it('records a routing_profile.created activity naming the key', async () => {
    const profile = (await post({ name: 'Logged', default_merchant_connector_id: connectorId })).body;
    const [entry] = await activities(tenant.merchant_id, 'routing_profile.created');
    expect(entry.actor_id).to.match(/^ak_/);
    expect(entry.changes).to.include({
      routing_profile_id: profile.id,
      name: 'Logged',
      is_active: false,
      payment_method: '*',
    });
  });

  it('requires routing:write (403 with routing:read only; 201 with routing:write)', async () => {
    const readOnly = await keyWithScopes(tenant, ['routing:read']);
    expectError(
      await post({ name: 'P', default_merchant_connector_id: connectorId }, readOnly),
      403,
      'authorization_error',
    );
    const writer = await keyWithScopes(tenant, ['routing:write']);
    expect((await post({ name: 'P', default_merchant_connector_id: connectorId }, writer)).status).to.equal(201);
  });

  it('refuses a merchant key on another merchant path, and an organization key of another organization, with 403', async () => {
    const second = await addMerchant(tenant);
    const res = await api.post(profilesPath(second.merchantId), {
      key: tenant.merchant_secret_key,
      body: { name: 'P', default_merchant_connector_id: connectorId },
    });
    expectError(res, 403, 'authorization_error');
    const stranger = await createTenant();
    expectError(
      await post({ name: 'P', default_merchant_connector_id: connectorId }, stranger.organization_secret_key),
      403,
      'authorization_error',
    );
  });

  it('answers 401 without a key', async () => {
    expectError(
      await api.post(profilesPath(tenant.merchant_id), {
        body: { name: 'P', default_merchant_connector_id: connectorId },
      }),
      401,
      'authentication_error',
    );
  });
});

describe('GET /api/v1/merchants/:merchant_id/routing-profiles', () => {
  it("lists the merchant's profiles newest first with flat pagination meta", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    await createProfile(other);
    const first = await createProfile(tenant, { name: 'First' });
    const second = await createProfile(tenant, { name: 'Second' });
    const res = await api.get(profilesPath(tenant.merchant_id), { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys(['data', 'meta']);
    expect(res.body.meta).to.deep.equal({
      page: 1,
      limit: 20,
      total: 2,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    expect(res.body.data.map((profile: { id: string }) => profile.id)).to.deep.equal([second.id, first.id]);
    expect(res.body.data[0]).to.have.all.keys(PROFILE_KEYS);
  });

  it('pages with page and limit', async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 3; i += 1) await createProfile(tenant, { name: `P${i}` });
    const res = await api.get(profilesPath(tenant.merchant_id), {
      key: tenant.organization_secret_key,
      query: { page: 2, limit: 2 },
    });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.have.length(1);
    expect(res.body.meta).to.include({ page: 2, limit: 2, total: 3, total_pages: 2, has_next: false, has_prev: true });
  });

  it('rejects limit over 100, page 0 and unknown parameters with 400', async () => {
    const tenant = await createTenant();
    for (const query of [{ limit: 101 }, { page: 0 }, { status: 'active' }]) {
      const res = await api.get(profilesPath(tenant.merchant_id), { key: tenant.merchant_secret_key, query });
      expectError(res, 400, 'validation_error');
    }
  });

  it('requires routing:read', async () => {
    const tenant = await createTenant();
    const key = await keyWithScopes(tenant, ['connectors:read']);
    expectError(await api.get(profilesPath(tenant.merchant_id), { key }), 403, 'authorization_error');
  });
});

describe('GET /api/v1/merchants/:merchant_id/routing-profiles/:profile_id', () => {
  it('returns the profile', async () => {
    const tenant = await createTenant();
    const profile = await createProfile(tenant);
    const res = await api.get(profilePath(tenant.merchant_id, profile.id), { key: tenant.organization_secret_key });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(profile);
  });

  it("answers 404 for another merchant's profile (even with an organization key owning both) and for a malformed id", async () => {
    const tenant = await createTenant();
    const second = await addMerchant(tenant);
    const profile = await createProfile(tenant);
    expectError(
      await api.get(profilePath(second.merchantId, profile.id), { key: tenant.organization_secret_key }),
      404,
      'not_found_error',
    );
    expectError(
      await api.get(profilePath(tenant.merchant_id, 'rp_missing'), { key: tenant.merchant_secret_key }),
      404,
      'not_found_error',
    );
    expectError(
      await api.get(profilePath(tenant.merchant_id, 'not-an-id'), { key: tenant.merchant_secret_key }),
      404,
      'not_found_error',
    );
  });

  it('rejects query parameters (the merchant comes from the path) with 400', async () => {
    const tenant = await createTenant();
    const profile = await createProfile(tenant);
    const res = await api.get(profilePath(tenant.merchant_id, profile.id), {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expectFieldErrors(res, ['merchant_id']);
  });
});

describe('PATCH /api/v1/merchants/:merchant_id/routing-profiles/:profile_id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const patch = (id: string, body: Record<string, unknown>) =>
    api.patch(profilePath(tenant.merchant_id, id), { key: tenant.merchant_secret_key, body });

  it('updates name, payment_method and default connector, bumping the version once per change', async () => {
    const profile = await createProfile(tenant);
    const inactive = await createConnector(tenant.merchant_id, { isActive: false });
    const res = await patch(profile.id, {
      name: 'Renamed',
      payment_method: 'pix',
      default_merchant_connector_id: inactive.id,
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({
      name: 'Renamed',
      payment_method: 'pix',
      default_merchant_connector_id: inactive.id,
      version: 2,
    });
    expect(Date.parse(res.body.updated_at)).to.be.at.least(Date.parse(profile.updated_at));
    expect((await patch(profile.id, { name: 'Again' })).body.version).to.equal(3);
  });

  it('leaves the version alone when nothing changes', async () => {
    const profile = await createProfile(tenant, { name: 'Same' });
    const res = await patch(profile.id, { name: 'Same' });
    expect(res.status).to.equal(200);
    expect(res.body.version).to.equal(1);
    expect((await patch(profile.id, {})).body.version).to.equal(1);
  });

  it('records a routing_profile.updated activity with what changed', async () => {
    const profile = await createProfile(tenant, { name: 'Before' });
    await patch(profile.id, { name: 'After' });
    const [entry] = await activities(tenant.merchant_id, 'routing_profile.updated');
    expect(entry.changes).to.deep.include({
      routing_profile_id: profile.id,
      name: { from: 'Before', to: 'After' },
      version: 2,
    });
  });

  it("rejects a null, unknown or another merchant's default connector with 400 and changes nothing", async () => {
    const profile = await createProfile(tenant);
    const foreign = await createConnector((await createTenant()).merchant_id);
    expectFieldErrors(await patch(profile.id, { default_merchant_connector_id: null }), [
      'default_merchant_connector_id',
    ]);
    expectFieldErrors(await patch(profile.id, { default_merchant_connector_id: foreign.id, name: 'X' }), [
      'default_merchant_connector_id',
    ]);
    expect(await getProfile(tenant, profile.id)).to.deep.equal(profile);
  });

  it('rejects bad input (blank name, unknown method, unknown field, node fields) with 400', async () => {
    const profile = await createProfile(tenant);
    expectFieldErrors(await patch(profile.id, { name: '' }), ['name']);
    expectFieldErrors(await patch(profile.id, { payment_method: 'crypto' }), ['payment_method']);
    expectFieldErrors(await patch(profile.id, { version: 9 }), ['version']);
    expectFieldErrors(await patch(profile.id, { is_active: null }), ['is_active']);
  });

  it("answers 404 for another merchant's profile", async () => {
    const other = await createTenant();
    const profile = await createProfile(other);
    expectError(await patch(profile.id, { name: 'Mine' }), 404, 'not_found_error');
    expect((await getProfile(other, profile.id)).name).to.equal(profile.name);
  });
});

describe('DELETE /api/v1/merchants/:merchant_id/routing-profiles/:profile_id', () => {
  it('answers 204 and removes the profile with its nodes, recording routing_profile.deleted', async () => {
    const tenant = await createTenant();
    const profile = await createProfile(tenant, { is_active: true });
    await addNode(tenant, profile.id, action(profile.default_merchant_connector_id));
    const res = await api.delete(profilePath(tenant.merchant_id, profile.id), { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expectError(await api.get(profilePath(tenant.merchant_id, profile.id), { key: tenant.merchant_secret_key }), 404);
    expect(await sql('select id from routing_nodes where routing_profile_id = ?', [profile.id])).to.be.empty;
    const [entry] = await activities(tenant.merchant_id, 'routing_profile.deleted');
    expect(entry.changes.routing_profile_id).to.equal(profile.id);
  });

  it("answers 404 for another merchant's or an unknown profile, deleting nothing", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const profile = await createProfile(other);
    expectError(
      await api.delete(profilePath(tenant.merchant_id, profile.id), { key: tenant.merchant_secret_key }),
      404,
    );
    expectError(
      await api.delete(profilePath(tenant.merchant_id, 'rp_unknown'), { key: tenant.merchant_secret_key }),
      404,
    );
    await getProfile(other, profile.id);
  });

  it('rejects a body with 400', async () => {
    const tenant = await createTenant();
    const profile = await createProfile(tenant);
    expectError(
      await api.delete(profilePath(tenant.merchant_id, profile.id), {
        key: tenant.merchant_secret_key,
        body: { force: true },
      }),
      400,
    );
  });
});
