/**
 * Rule: an organization's own API keys are managed in the organization Dashboard like a merchant's keys in the
 * merchant Dashboard: GET /org/api-keys lists them (never the keys: prefix and last four), owners and admins roll
 * them (a new key with the same name, kind, scopes and expiry; the old one works for the overlap) and revoke them
 * (refused from the next request). Only this organization's keys, never a merchant's; viewers read only; no API key
 * manages them (a leaked key must not mint or keep others).
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { bearer, createOrganizationUser, signIn } from '../helpers/dashboard';
import { keyId } from '../helpers/merchants';
import { rows } from '../helpers/db';

async function orgSession(tenant: Tenant, role: 'owner' | 'admin' | 'viewer') {
  const user = await createOrganizationUser([tenant.organization_id], { role });
  const { access_token: token } = await signIn('organization', user);
  return { userId: user.id, headers: bearer(token as string, { 'x-organization-id': tenant.organization_id }) };
}

describe('Rule: organization keys are listed, rolled and revoked in the organization Dashboard', function () {
  this.timeout(60_000);
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it("GET /org/api-keys lists the organization's secret and public keys without the keys, none of a merchant or another organization", async () => {
    const { headers } = await orgSession(tenant, 'viewer');
    await createTenant();
    const res = await api.get('/org/api-keys', { headers });
    expect(res.status, res.text).to.equal(200);
    const ids = [await keyId(tenant.organization_secret_key), await keyId(tenant.organization_public_key)];
    expect(res.body.data.map((key: any) => key.id).sort()).to.deep.equal(ids.sort());
    expect(res.body.meta).to.include({ page: 1, total: 2 });
    for (const key of res.body.data) {
      expect(key).to.include({ organization_id: tenant.organization_id, status: 'active' });
      expect(key).not.to.have.any.keys('key', 'merchant_id', 'secret_hash');
      expect(key.prefix).to.match(/^(sk|pk)_live_org_$/);
    }
    expect(JSON.stringify(res.body)).not.to.include(tenant.organization_secret_key);
  });

  it('an owner rolls the organization secret key: a new working key (same name, kind, scopes) naming the owner; the old one works for the overlap', async () => {
    const owner = await orgSession(tenant, 'owner');
    const oldId = await keyId(tenant.organization_secret_key);
    const rolled = await api.post(`/org/api-keys/${oldId}/roll`, {
      headers: owner.headers,
      body: { expires_in_hours: 1 },
    });
    expect(rolled.status, rolled.text).to.equal(201);
    expect(rolled.body.key).to.match(/^sk_live_org_/);
    expect(rolled.body).to.deep.include({
      organization_id: tenant.organization_id,
      kind: 'secret',
      created_by: { type: 'dashboard_user', id: owner.userId },
      expires_at: null,
    });
    const list = (await api.get('/org/api-keys', { headers: owner.headers })).body.data;
    const old = list.find((key: any) => key.id === oldId);
    expect(rolled.body.scopes).to.deep.equal(old.scopes);
    expect(rolled.body.name).to.equal(old.name);
    expect(Date.parse(old.expires_at) - Date.now()).to.be.within(59 * 60_000, 60 * 60_000);
    expect((await api.get('/merchants', { key: rolled.body.key })).status).to.equal(200);
    expect((await api.get('/merchants', { key: tenant.organization_secret_key })).status).to.equal(200);
  });

  it('an admin revokes an organization key: refused from the next request; revoking again answers it unchanged', async () => {
    const admin = await orgSession(tenant, 'admin');
    const id = await keyId(tenant.organization_secret_key);
    expect((await api.get('/merchants', { key: tenant.organization_secret_key })).status).to.equal(200);
    const revoked = await api.post(`/org/api-keys/${id}/revoke`, { headers: admin.headers });
    expect(revoked.status, revoked.text).to.equal(200);
    expect(revoked.body).to.include({ id, status: 'revoked' });
    expectError(await api.get('/merchants', { key: tenant.organization_secret_key }), 401);
    const again = await api.post(`/org/api-keys/${id}/revoke`, { headers: admin.headers });
    expect(again.body.revoked_at).to.equal(revoked.body.revoked_at);
  });

  it("a viewer cannot roll or revoke (403); a merchant's key or another organization's is 404; nothing changes", async () => {
    const viewer = await orgSession(tenant, 'viewer');
    const owner = await orgSession(tenant, 'owner');
    const id = await keyId(tenant.organization_secret_key);
    expectError(await api.post(`/org/api-keys/${id}/revoke`, { headers: viewer.headers }), 403);
    expectError(
      await api.post(`/org/api-keys/${id}/roll`, { headers: viewer.headers, body: { expires_in_hours: 0 } }),
      403,
    );
    const other = await createTenant();
    for (const foreign of [await keyId(tenant.merchant_secret_key), await keyId(other.organization_secret_key)]) {
      expectError(await api.post(`/org/api-keys/${foreign}/revoke`, { headers: owner.headers }), 404);
      expectError(
        await api.post(`/org/api-keys/${foreign}/roll`, { headers: owner.headers, body: { expires_in_hours: 0 } }),
        404,
      );
    }
    for (const key of [tenant.organization_secret_key, tenant.merchant_secret_key, other.organization_secret_key]) {
      expect((await api.get(key.includes('_org_') ? '/merchants' : '/customers', { key })).status).to.equal(200);
    }
  });

  it("a roll and a revoke of an organization key are in the activity record of each of the organization's merchants, naming who did it", async () => {
    const owner = await orgSession(tenant, 'owner');
    const oldId = await keyId(tenant.organization_secret_key);
    const rolled = await api.post(`/org/api-keys/${oldId}/roll`, {
      headers: owner.headers,
      body: { expires_in_hours: 1 },
    });
    expect(rolled.status, rolled.text).to.equal(201);
    expect((await api.post(`/org/api-keys/${rolled.body.id}/revoke`, { headers: owner.headers })).status).to.equal(200);
    const records = await rows(
      `select action, actor_type, actor_id, changes from merchant_activities
        where merchant_id = ? and action like 'api_key.%' order by created_at, id`,
      [tenant.merchant_id],
    );
    expect(records.map((record) => [record.action, record.actor_type, record.actor_id])).to.deep.equal([
      ['api_key.rolled', 'dashboard_user', owner.userId],
      ['api_key.revoked', 'dashboard_user', owner.userId],
    ]);
    expect(records[0].changes).to.include({ rolled_from: oldId });
    expect(JSON.stringify(records)).not.to.include(rolled.body.key);
  });
});
