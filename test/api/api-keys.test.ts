/**
 * API-key lifecycle (designed in docs/api-decisions.md): the organization key and merchant owners/admins
 * issue keys (the key shown once, `ak_` id), narrowed by scopes; lists never carry a key; a revoked key is refused
 * from the next request; a rolled key keeps working for the overlap it was given. Merchant keys manage no keys. A
 * key is never wider than the key that issues or rolls it; an unknown scope is a 400.
 */
import { expect } from 'chai';
import { withApp } from '../helpers/app-server';
import { AuthCache } from '../../api/http/auth';
import { api } from '../helpers/http';
import { createTenant, customerInput, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { stack } from '../helpers/stack';
import { publicHeaders } from '../helpers/vault';

const KEY_FIELDS = [
  'id',
  'merchant_id',
  'name',
  'kind',
  'prefix',
  'last_four',
  'scopes',
  'status',
  'created_at',
  'last_used_at',
  'expires_at',
  'revoked_at',
  'created_by',
];
const keysPath = (tenant: Tenant) => `/merchants/${tenant.merchant_id}/api-keys`;

async function issue(tenant: Tenant, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await api.post(keysPath(tenant), { key: tenant.organization_secret_key, body });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

describe('API keys: issue, list, revoke, roll', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('issues a key shown once with an ak_ id; a customers:read key reads customers and gets 403 on writes', async () => {
    const created = await issue(tenant, { name: 'Reporting', kind: 'secret', scopes: ['customers:read'] });
    expect(created).to.have.all.keys([...KEY_FIELDS, 'key']);
    expect(created.id).to.match(/^ak_/);
    expect(created.key).to.match(/^sk_live_mer_[0-9A-Za-z]{32}$/);
    expect(created).to.include({ prefix: 'sk_live_mer_', last_four: created.key.slice(-4), status: 'active' });
    expect(created.scopes).to.deep.equal(['customers:read']);
    expect((await api.get('/customers', { key: created.key })).status).to.equal(200);
    const write = await api.post('/customers', { key: created.key, body: customerInput() });
    expectError(write, 403, 'authorization_error', 'INSUFFICIENT_PERMISSIONS');
    expect(write.body.error.message).to.match(/customers:write/);
  });

  it('lists keys without the keys themselves, with last_used_at once used', async () => {
    const created = await issue(tenant, { name: 'Server', kind: 'secret' });
    expect((await api.get('/customers', { key: created.key })).status).to.equal(200);
    const list = await api.get(keysPath(tenant), { key: tenant.organization_secret_key });
    expect(list.status, list.text).to.equal(200);
    expect(list.text).to.not.include(created.key);
    expect(list.text).to.not.include(tenant.merchant_secret_key);
    const listed = list.body.data.find((key: any) => key.id === created.id);
    expect(listed).to.have.all.keys(KEY_FIELDS);
    expect(listed.last_used_at).to.be.a('string');
  });

  it('a revoked key is refused with 401 from the next request', async () => {
    const created = await issue(tenant, { name: 'Leaked', kind: 'secret' });
    expect((await api.get('/customers', { key: created.key })).status).to.equal(200);
    const revoked = await api.post(`${keysPath(tenant)}/${created.id}/revoke`, { key: tenant.organization_secret_key });
    expect(revoked.status, revoked.text).to.equal(200);
    expect(revoked.body).to.include({ status: 'revoked' });
    expectError(await api.get('/customers', { key: created.key }), 401, 'authentication_error');
  });

  it('rolling gives a new key at once; the old one works until its overlap ends (0: refused at once)', async () => {
    const created = await issue(tenant, { name: 'Rotating', kind: 'secret', scopes: ['customers:read'] });
    const rolled = await api.post(`${keysPath(tenant)}/${created.id}/roll`, {
      key: tenant.organization_secret_key,
      body: { expires_in_hours: 1 },
    });
    expect(rolled.status, rolled.text).to.equal(201);
    expect(rolled.body.id).to.not.equal(created.id);
    expect(rolled.body).to.include({ name: 'Rotating' });
    expect(rolled.body.scopes).to.deep.equal(['customers:read']);
    expect((await api.get('/customers', { key: rolled.body.key })).status).to.equal(200);
    expect((await api.get('/customers', { key: created.key })).status).to.equal(200);
    const list = await api.get(keysPath(tenant), { key: tenant.organization_secret_key });
    const old = list.body.data.find((key: any) => key.id === created.id);
    expect(Date.parse(old.expires_at) - Date.now()).to.be.within(59 * 60_000, 60 * 60_000);

    const again = await api.post(`${keysPath(tenant)}/${rolled.body.id}/roll`, {
      key: tenant.organization_secret_key,
      body: { expires_in_hours: 0 },
    });
    expect(again.status, again.text).to.equal(201);
    expectError(await api.get('/customers', { key: rolled.body.key }), 401, 'authentication_error');
    const expired = await api.post(`${keysPath(tenant)}/${rolled.body.id}/roll`, {
      key: tenant.organization_secret_key,
      body: { expires_in_hours: 0 },
    });
    expectError(expired, 409, 'conflict_error', 'API_KEY_NOT_ACTIVE');
  });

  it('public keys carry no scopes and work on browser endpoints', async () => {
    expectError(
      await api.post(keysPath(tenant), {
        key: tenant.organization_secret_key,
        body: { name: 'Web', kind: 'public', scopes: ['customers:read'] },
      }),
      400,
      'validation_error',
    );
    const created = await issue(tenant, { name: 'Web', kind: 'public' });
    expect(created.key).to.match(/^pk_live_mer_/);
    expect(created.scopes).to.deep.equal([]);
    expect((await api.post('/sessions', { headers: publicHeaders(created.key), body: {} })).status).to.equal(201);
  });

  it('a merchant key cannot manage keys; another organization cannot reach them; another merchant’s key id is 404', async () => {
    expectError(
      await api.post(keysPath(tenant), { key: tenant.merchant_secret_key, body: { name: 'x', kind: 'secret' } }),
      403,
    );
    const other = await createTenant();
    expectError(await api.get(keysPath(tenant), { key: other.organization_secret_key }), 403);
    const theirs = await issue(other, { name: 'Theirs', kind: 'secret' });
    expectError(
      await api.post(`${keysPath(tenant)}/${theirs.id}/revoke`, { key: tenant.organization_secret_key }),
      404,
    );
    expect((await api.get('/customers', { key: theirs.key })).status).to.equal(200);
  });

  it('a suspended merchant can still have a key revoked, not issued', async () => {
    const created = await issue(tenant, { name: 'Before', kind: 'secret' });
    const suspended = await api.patch(`/merchants/${tenant.merchant_id}`, {
      key: tenant.organization_secret_key,
      body: { status: 'suspended' },
    });
    expect(suspended.status, suspended.text).to.equal(200);
    expectError(
      await api.post(keysPath(tenant), { key: tenant.organization_secret_key, body: { name: 'x', kind: 'secret' } }),
      403,
      'authorization_error',
      'MERCHANT_SUSPENDED',
    );
    const revoked = await api.post(`${keysPath(tenant)}/${created.id}/revoke`, { key: tenant.organization_secret_key });
    expect(revoked.status, revoked.text).to.equal(200);
  });

  it('a suspension is in force for the next request of the API process that committed it, before its change notification arrives', async () => {
    // This app's auth cache hears no NOTIFY: the suspension's notification arrives after the next request.
    const cache = new AuthCache();
    cache.setListening(true);
    await withApp({ ...stack().api.deps, authCache: cache }, async (baseUrl) => {
      const key = tenant.organization_secret_key;
      // Issuing caches the merchant as active with the organization key's access to it.
      const before = await api.post(keysPath(tenant), { key, body: { name: 'Before', kind: 'secret' }, baseUrl });
      expect(before.status, before.text).to.equal(201);
      const suspended = await api.patch(`/merchants/${tenant.merchant_id}`, {
        key,
        body: { status: 'suspended' },
        baseUrl,
      });
      expect(suspended.status, suspended.text).to.equal(200);
      expectError(
        await api.post(keysPath(tenant), { key, body: { name: 'After', kind: 'secret' }, baseUrl }),
        403,
        'authorization_error',
        'MERCHANT_SUSPENDED',
      );
    });
  });

  it('in the merchant Dashboard, owners and admins issue and revoke keys; viewers only list them', async () => {
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const viewer = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'viewer' });
    const as = async (user: typeof owner) =>
      bearer((await signIn('merchant', user)).access_token as string, { 'x-merchant-id': tenant.merchant_id });
    const ownerHeaders = await as(owner);
    const created = await api.post('/merchant/api-keys', {
      headers: ownerHeaders,
      body: { name: 'From the Dashboard', kind: 'secret', scopes: ['transactions:read'] },
    });
    expect(created.status, created.text).to.equal(201);
    const viewerHeaders = await as(viewer);
    expect((await api.get('/merchant/api-keys', { headers: viewerHeaders })).status).to.equal(200);
    expectError(
      await api.post('/merchant/api-keys', { headers: viewerHeaders, body: { name: 'x', kind: 'secret' } }),
      403,
    );
    const revoked = await api.post(`/merchant/api-keys/${created.body.id}/revoke`, { headers: ownerHeaders });
    expect(revoked.status, revoked.text).to.equal(200);
    expectError(await api.get('/transactions', { key: created.body.key }), 401);
  });

  it('a key is issued no wider than its issuer: a scope the issuing key lacks (or every scope, when omitted) is 403 naming it, and nothing is issued', async () => {
    const narrow = await keyWithScopes(tenant, ['merchants:read', 'merchants:write', 'customers:read'], 'organization');
    const before = (await api.get(keysPath(tenant), { key: tenant.organization_secret_key })).body.data.length;
    const wider = await api.post(keysPath(tenant), {
      key: narrow,
      body: { name: 'Wider', kind: 'secret', scopes: ['customers:read', 'customers:write'] },
    });
    expectError(wider, 403, 'authorization_error', 'INSUFFICIENT_PERMISSIONS');
    expect(wider.body.error.message).to.include('customers:write').and.not.include('customers:read,');
    expectError(await api.post(keysPath(tenant), { key: narrow, body: { name: 'All', kind: 'secret' } }), 403);
    const after = (await api.get(keysPath(tenant), { key: tenant.organization_secret_key })).body.data.length;
    expect(after).to.equal(before);

    const within = await api.post(keysPath(tenant), {
      key: narrow,
      body: { name: 'Within', kind: 'secret', scopes: ['customers:read'] },
    });
    expect(within.status, within.text).to.equal(201);
    expect(within.body.scopes).to.deep.equal(['customers:read']);
    expect((await api.post(keysPath(tenant), { key: narrow, body: { name: 'Web', kind: 'public' } })).status).to.equal(
      201,
    );
  });

  it('a roll by a narrower key than the rolled one is 403, and the old key keeps working as it was', async () => {
    const wide = await issue(tenant, { name: 'Wide', kind: 'secret', scopes: ['customers:read', 'customers:write'] });
    const narrow = await keyWithScopes(tenant, ['merchants:read', 'merchants:write', 'customers:read'], 'organization');
    const rolled = await api.post(`${keysPath(tenant)}/${wide.id}/roll`, {
      key: narrow,
      body: { expires_in_hours: 0 },
    });
    expectError(rolled, 403, 'authorization_error', 'INSUFFICIENT_PERMISSIONS');
    expect(rolled.body.error.message).to.include('customers:write');
    expect((await api.get('/customers', { key: wide.key })).status).to.equal(200);
  });

  it('an unknown scope is a 400 naming the field', async () => {
    const res = await api.post(keysPath(tenant), {
      key: tenant.organization_secret_key,
      body: { name: 'Typo', kind: 'secret', scopes: ['customers:delete'] },
    });
    expectError(res, 400, 'validation_error');
    expect(JSON.stringify(res.body.error.details)).to.include('scopes');
  });
});
