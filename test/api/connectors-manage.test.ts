/** GET/PATCH/DELETE /api/v1/merchants/:merchant_id/connectors(/:connector_id): Document 3 "Connectors (merchant-level)". */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import {
  CONNECTOR_KEYS,
  connectorsPath,
  insertActionNode,
  insertRoutingProfile,
  postConnector,
  rows,
  validCredentials,
  validWebhookSecret,
  withoutReadTime,
} from '../helpers/connectors';

describe('GET /api/v1/merchants/:merchant_id/connectors', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it("lists the merchant's connectors newest first, bare {data, meta} with flat pagination", async () => {
    const first = await postConnector(tenant, 'provider_a');
    const second = await postConnector(tenant, 'provider_b');
    const other = await addMerchant(tenant);
    await api.post(connectorsPath(other.merchantId), {
      key: other.merchantKey,
      body: {
        provider_slug: 'provider_d',
        name: 'Other',
        is_test_mode: true,
        auth_method: 'api_key',
        credentials: validCredentials('provider_d'),
      },
    });
    const res = await api.get(connectorsPath(tenant.merchant_id), { key: tenant.merchant_secret_key });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(['data', 'meta']);
    expect(res.body.meta).to.deep.equal({
      page: 1,
      limit: 20,
      total: 2,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    expect(res.body.data.map((c: any) => c.id)).to.deep.equal([second.id, first.id]);
    for (const connector of res.body.data)
      expect(Object.keys(connector).sort()).to.deep.equal([...CONNECTOR_KEYS].sort());
    expect(withoutReadTime(res.body.data[1])).to.deep.equal(withoutReadTime(first));
  });

  it('pages with page and limit', async () => {
    for (let i = 0; i < 3; i += 1) await postConnector(tenant);
    const res = await api.get(connectorsPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      query: { page: 2, limit: 2 },
    });
    expect(res.body.data).to.have.length(1);
    expect(res.body.meta).to.deep.equal({
      page: 2,
      limit: 2,
      total: 3,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
  });

  it("accepts an organization key for its merchant; 403 for another organization's", async () => {
    await postConnector(tenant);
    const res = await api.get(connectorsPath(tenant.merchant_id), { key: tenant.organization_secret_key });
    expect(res.body.data).to.have.length(1);
    const other = await createTenant();
    expectError(
      await api.get(connectorsPath(tenant.merchant_id), { key: other.organization_secret_key }),
      403,
      'authorization_error',
    );
  });

  it('requires connectors:read (403) and rejects a bad limit (400)', async () => {
    const key = await keyWithScopes(tenant, ['connectors:write']);
    expectError(await api.get(connectorsPath(tenant.merchant_id), { key }), 403, 'authorization_error');
    expectError(
      await api.get(connectorsPath(tenant.merchant_id), { key: tenant.merchant_secret_key, query: { limit: 0 } }),
      400,
      'validation_error',
    );
  });
});

describe('GET /api/v1/merchants/:merchant_id/connectors/:connector_id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const path = (id: string, merchantId = tenant.merchant_id) => `${connectorsPath(merchantId)}/${id}`;

  it('returns the connector as created', async () => {
    const created = await postConnector(tenant, 'provider_c', { webhook_secret: validWebhookSecret('provider_c') });
    const res = await api.get(path(created.id), { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(200);
    expect(withoutReadTime(res.body)).to.deep.equal(withoutReadTime(created));
  });

  it("returns 404 for another merchant's connector (same organization key), an unknown id and a malformed id", async () => {
    const other = await addMerchant(tenant);
    const foreign = (
      await api.post(connectorsPath(other.merchantId), {
        key: other.merchantKey,
        body: {
          provider_slug: 'provider_a',
          name: 'x',
          is_test_mode: true,
          auth_method: 'api_key',
          credentials: validCredentials('provider_a'),
        },
      })
    ).body;
    expectError(await api.get(path(foreign.id), { key: tenant.merchant_secret_key }), 404, 'not_found_error');
    expectError(await api.get(path(foreign.id), { key: tenant.organization_secret_key }), 404, 'not_found_error');
    expectError(await api.get(path('conn_unknown'), { key: tenant.merchant_secret_key }), 404, 'not_found_error');
    expectError(await api.get(path('nope'), { key: tenant.merchant_secret_key }), 404, 'not_found_error');
  });

  it('accepts an organization key and requires connectors:read', async () => {
    const created = await postConnector(tenant);
    expect((await api.get(path(created.id), { key: tenant.organization_secret_key })).status).to.equal(200);
    const key = await keyWithScopes(tenant, ['customers:read']);
    expectError(await api.get(path(created.id), { key }), 403, 'authorization_error');
  });
});

describe('PATCH /api/v1/merchants/:merchant_id/connectors/:connector_id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const patch = (id: string, body: Record<string, unknown>, key = tenant.merchant_secret_key) =>
    api.patch(`${connectorsPath(tenant.merchant_id)}/${id}`, { key, body });
  const storedRow = async (id: string) => (await rows('select * from merchant_connectors where id = ?', [id]))[0];

  it('updates name and is_active and moves updated_at', async () => {
    const created = await postConnector(tenant);
    const res = await patch(created.id, { name: 'Renamed', is_active: false });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ name: 'Renamed', is_active: false, provider_slug: 'provider_a' });
    expect(Date.parse(res.body.updated_at)).to.be.greaterThan(Date.parse(created.updated_at));
    expect(res.body.webhook_url).to.equal(created.webhook_url);
  });

  it('re-validates credentials against the stored provider and re-encrypts them', async () => {
    const created = await postConnector(tenant, 'provider_b');
    const before = await storedRow(created.id);
    expectFieldErrors(await patch(created.id, { credentials: validCredentials('provider_a') }), [
      'credentials.secret_key',
      'credentials.username',
      'credentials.password',
      'credentials.merchant_account',
    ]);
    expect((await storedRow(created.id)).credentials_encrypted).to.equal(before.credentials_encrypted);
    expect((await patch(created.id, { credentials: validCredentials('provider_b') })).status).to.equal(200);
    expect((await storedRow(created.id)).credentials_encrypted).to.not.equal(before.credentials_encrypted);
  });

  it("re-validates provider_c credentials against the connector's auth method", async () => {
    const created = await postConnector(tenant, 'provider_c', { auth_method: 'oauth2' });
    expectFieldErrors(await patch(created.id, { credentials: validCredentials('provider_c', 'api_key') }), [
      'credentials.access_token',
      'credentials.client_id',
      'credentials.client_secret',
    ]);
    expect((await patch(created.id, { credentials: validCredentials('provider_c', 'oauth2') })).status).to.equal(200);
  });

  it('sets, replaces and (with null) removes the webhook secret', async () => {
    const created = await postConnector(tenant, 'provider_a');
    expect(
      (await patch(created.id, { webhook_secret: validWebhookSecret('provider_a') })).body.has_webhook_secret,
    ).to.equal(true);
    expectFieldErrors(await patch(created.id, { webhook_secret: 'not-a-whsec-secret' }), ['webhook_secret']);
    expect((await storedRow(created.id)).webhook_secret_encrypted).to.be.a('string');
    expect((await patch(created.id, { webhook_secret: null })).body.has_webhook_secret).to.equal(false);
    expect((await storedRow(created.id)).webhook_secret_encrypted).to.equal(null);
  });

  it('replaces config as a whole: omitted or empty card_brands clears the override, null clears config', async () => {
    const created = await postConnector(tenant, 'provider_b', {
      config: { card_brands: ['visa'], installments_enabled: true },
    });
    expect((await patch(created.id, { name: 'No config change' })).body.config).to.deep.equal({
      card_brands: ['visa'],
      installments_enabled: true,
    });
    expect((await patch(created.id, { config: { installments_enabled: false } })).body.config).to.deep.equal({
      installments_enabled: false,
    });
    expect((await patch(created.id, { config: { card_brands: ['elo', 'visa'] } })).body.config).to.deep.equal({
      card_brands: ['elo', 'visa'],
    });
    expect((await patch(created.id, { config: { card_brands: [] } })).body.config).to.equal(null);
    await patch(created.id, { config: { card_brands: ['amex'] } });
    expect((await patch(created.id, { config: null })).body.config).to.equal(null);
  });

  it('rejects card_brands the provider does not support (400) and changes nothing', async () => {
    const created = await postConnector(tenant, 'provider_d');
    expectFieldErrors(await patch(created.id, { name: 'Changed', config: { card_brands: ['amex'] } }), [
      'config.card_brands',
    ]);
    expect((await storedRow(created.id)).name).to.equal(created.name);
  });

  it('refuses fields that are not updatable and bad types (400)', async () => {
    const created = await postConnector(tenant);
    expectFieldErrors(await patch(created.id, { provider_slug: 'provider_b', auth_method: 'oauth2' }), [
      'provider_slug',
      'auth_method',
    ]);
    expectFieldErrors(await patch(created.id, { is_active: 'no', name: '' }), ['is_active', 'name']);
  });

  it('an empty body is a 200 no-op', async () => {
    const created = await postConnector(tenant);
    const res = await patch(created.id, {});
    expect(res.status).to.equal(200);
    expect(withoutReadTime(res.body)).to.deep.equal(withoutReadTime(created));
  });

  it("returns 404 for another merchant's connector and changes nothing", async () => {
    const other = await createTenant();
    const foreign = await postConnector(other);
    const res = await api.patch(`${connectorsPath(tenant.merchant_id)}/${foreign.id}`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Hijacked' },
    });
    expectError(res, 404, 'not_found_error');
    expect((await storedRow(foreign.id)).name).to.equal(foreign.name);
  });

  it('accepts an organization key and requires connectors:write', async () => {
    const created = await postConnector(tenant);
    expect((await patch(created.id, { name: 'By org' }, tenant.organization_secret_key)).body.name).to.equal('By org');
    const key = await keyWithScopes(tenant, ['connectors:read']);
    expectError(await patch(created.id, { name: 'x' }, key), 403, 'authorization_error');
  });
});

describe('DELETE /api/v1/merchants/:merchant_id/connectors/:connector_id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const del = (id: string, key = tenant.merchant_secret_key) =>
    api.delete(`${connectorsPath(tenant.merchant_id)}/${id}`, { key });
  const exists = async (id: string) =>
    (await rows('select id from merchant_connectors where id = ?', [id])).length === 1;

  it('deletes an unused connector (204, then 404)', async () => {
    const created = await postConnector(tenant);
    const res = await del(created.id);
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    expect(await exists(created.id)).to.equal(false);
    expectError(await del(created.id), 404, 'not_found_error');
  });

  it('returns 400 CONNECTOR_IN_USE naming the profile while it is a routing profile default', async () => {
    const created = await postConnector(tenant);
    const profile = await insertRoutingProfile(tenant.merchant_id, created.id);
    const error = expectError(await del(created.id), 400, 'validation_error', 'CONNECTOR_IN_USE');
    expect(error.details).to.deep.equal({ routing_profile_ids: [profile.id] });
    expect(await exists(created.id)).to.equal(true);
  });

  it('returns 400 CONNECTOR_IN_USE naming the node while a routing node routes to it', async () => {
    const fallback = await postConnector(tenant, 'provider_b');
    const created = await postConnector(tenant);
    const profile = await insertRoutingProfile(tenant.merchant_id, fallback.id);
    const node = await insertActionNode(profile.id, created.id);
    const error = expectError(await del(created.id), 400, 'validation_error', 'CONNECTOR_IN_USE');
    expect(error.details).to.deep.equal({ routing_node_ids: [node.id] });
    expect(await exists(created.id)).to.equal(true);
    await rows('delete from routing_nodes where id = ?', [node.id]);
    expect((await del(created.id)).status).to.equal(204);
  });

  it("returns 404 for another merchant's connector and leaves it", async () => {
    const other = await createTenant();
    const foreign = await postConnector(other);
    expectError(await del(foreign.id), 404, 'not_found_error');
    expectError(await del(foreign.id, tenant.organization_secret_key), 404, 'not_found_error');
    expect(await exists(foreign.id)).to.equal(true);
  });

  it('accepts an organization key and requires connectors:write', async () => {
    const created = await postConnector(tenant);
    const key = await keyWithScopes(tenant, ['connectors:read']);
    expectError(await del(created.id, key), 403, 'authorization_error');
    expect((await del(created.id, tenant.organization_secret_key)).status).to.equal(204);
  });

  it('refuses a request body (400)', async () => {
    const created = await postConnector(tenant);
    const res = await api.delete(`${connectorsPath(tenant.merchant_id)}/${created.id}`, {
      key: tenant.merchant_secret_key,
      body: { force: true },
    });
    expectError(res, 400, 'validation_error');
    expect(await exists(created.id)).to.equal(true);
  });
});
