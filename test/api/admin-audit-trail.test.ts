/**
 * Rule: who did what. Every API key names who minted it (a Dashboard user or the organization key), minting,
 * rolling and revoking a key each leave an activity record with the actor in the same transaction (a refused
 * request records nothing), and removing a member can revoke the keys that member minted, which otherwise stay
 * listed under their creator.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { rows } from '../helpers/db';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';

async function member(tenant: Tenant, role: 'owner' | 'admin') {
  const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role });
  const { access_token: token } = await signIn('merchant', user);
  const [membership] = await rows('select id from merchant_members where user_id = ?', [user.id]);
  return {
    userId: user.id,
    memberId: membership.id as string,
    headers: bearer(token as string, { 'x-merchant-id': tenant.merchant_id }),
  };
}

async function organizationKeyId(tenant: Tenant): Promise<string> {
  const [key] = await rows(
    "select id from api_keys where organization_id = ? and merchant_id is null and kind = 'secret'",
    [tenant.organization_id],
  );
  return key.id;
}

async function activity(tenant: Tenant): Promise<any[]> {
  const res = await api.get(`/merchants/${tenant.merchant_id}/activity`, {
    key: tenant.organization_secret_key,
    query: { limit: 100 },
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

const keyActions = (records: any[]) => records.filter((record) => record.action.startsWith('api_key.'));

describe('Rule: an API key names who minted it, and every key change is in the activity record', function () {
  this.timeout(60_000);
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('a key minted in the Dashboard names the signed-in user; one minted through the API names the organization key; a roll names who rolled', async () => {
    const admin = await member(tenant, 'admin');
    const fromDashboard = await api.post('/merchant/api-keys', {
      headers: admin.headers,
      body: { name: 'ci', kind: 'secret', scopes: ['customers:read'] },
    });
    expect(fromDashboard.status, fromDashboard.text).to.equal(201);
    expect(fromDashboard.body.created_by).to.deep.equal({ type: 'dashboard_user', id: admin.userId });

    const fromApi = await api.post(`/merchants/${tenant.merchant_id}/api-keys`, {
      key: tenant.organization_secret_key,
      body: { name: 'server', kind: 'secret' },
    });
    expect(fromApi.status, fromApi.text).to.equal(201);
    const orgKey = { type: 'api_key', id: await organizationKeyId(tenant) };
    expect(fromApi.body.created_by).to.deep.equal(orgKey);

    const rolled = await api.post(`/merchants/${tenant.merchant_id}/api-keys/${fromDashboard.body.id}/roll`, {
      key: tenant.organization_secret_key,
      body: { expires_in_hours: 1 },
    });
    expect(rolled.status, rolled.text).to.equal(201);
    expect(rolled.body.created_by).to.deep.equal(orgKey);

    const listed = await api.get('/merchant/api-keys', { headers: admin.headers });
    const byId = new Map(listed.body.data.map((key: any) => [key.id, key.created_by]));
    expect(byId.get(fromDashboard.body.id)).to.deep.equal({ type: 'dashboard_user', id: admin.userId });
    expect(byId.get(fromApi.body.id)).to.deep.equal(orgKey);
    expect(byId.get(rolled.body.id)).to.deep.equal(orgKey);
    // The keys made by the bootstrap CLI have no recorded creator.
    const bootstrap = listed.body.data.filter(
      (key: any) => ![fromDashboard, fromApi, rolled].some((k) => k.body.id === key.id),
    );
    expect(bootstrap.map((key: any) => key.created_by)).to.deep.equal(bootstrap.map(() => null));
  });

  it('minting, rolling and revoking a key each write an activity record naming the actor, and never the key itself', async () => {
    const admin = await member(tenant, 'admin');
    const created = await api.post('/merchant/api-keys', {
      headers: admin.headers,
      body: { name: 'ci', kind: 'secret', scopes: ['customers:read'], expires_in_hours: 24 },
    });
    expect(created.status, created.text).to.equal(201);
    const rolled = await api.post(`/merchant/api-keys/${created.body.id}/roll`, {
      headers: admin.headers,
      body: { expires_in_hours: 0 },
    });
    expect(rolled.status, rolled.text).to.equal(201);
    const revoked = await api.post(`/merchants/${tenant.merchant_id}/api-keys/${rolled.body.id}/revoke`, {
      key: tenant.organization_secret_key,
    });
    expect(revoked.status, revoked.text).to.equal(200);

    const records = keyActions(await activity(tenant)).reverse();
    const person = { type: 'dashboard_user', id: admin.userId };
    expect(records.map((record) => [record.action, record.actor])).to.deep.equal([
      ['api_key.created', person],
      ['api_key.rolled', person],
      ['api_key.revoked', { type: 'api_key', id: await organizationKeyId(tenant) }],
    ]);
    expect(records[0].changes).to.deep.include({
      api_key_id: created.body.id,
      name: 'ci',
      kind: 'secret',
      scopes: ['customers:read'],
      expires_at: created.body.expires_at,
    });
    expect(records[1].changes).to.deep.include({ api_key_id: rolled.body.id, rolled_from: created.body.id });
    expect(records[2].changes).to.deep.include({ api_key_id: rolled.body.id });
    const text = JSON.stringify(records);
    for (const secret of [created.body.key, rolled.body.key]) expect(text).to.not.include(secret);
  });

  it('a refused key change records nothing: a public key with scopes, a roll of a revoked key, a second revoke', async () => {
    const owner = await member(tenant, 'owner');
    const before = keyActions(await activity(tenant)).length;
    expectError(
      await api.post('/merchant/api-keys', {
        headers: owner.headers,
        body: { name: 'pk', kind: 'public', scopes: ['customers:read'] },
      }),
      400,
    );
    const created = await api.post('/merchant/api-keys', {
      headers: owner.headers,
      body: { name: 'x', kind: 'secret' },
    });
    await api.post(`/merchant/api-keys/${created.body.id}/revoke`, { headers: owner.headers });
    expectError(
      await api.post(`/merchant/api-keys/${created.body.id}/roll`, {
        headers: owner.headers,
        body: { expires_in_hours: 0 },
      }),
      409,
    );
    expect(keyActions(await activity(tenant)).map((record) => record.action)).to.have.length(before + 2);
    // Revoking a revoked key changes nothing and records nothing more.
    await api.post(`/merchant/api-keys/${created.body.id}/revoke`, { headers: owner.headers });
    expect(keyActions(await activity(tenant))).to.have.length(before + 2);
  });
});

describe('Rule: removing a member can revoke the keys that member minted', function () {
  this.timeout(60_000);
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  async function mintAs(headers: Record<string, string>, name: string) {
    const res = await api.post('/merchant/api-keys', {
      headers,
      body: { name, kind: 'secret', scopes: ['customers:read'] },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  it("the keys a member minted are listed by created_by; removal with revoke_keys revokes them at once, and leaves everyone else's", async () => {
    const owner = await member(tenant, 'owner');
    const admin = await member(tenant, 'admin');
    const theirs = await mintAs(admin.headers, 'leaving with me');
    const ours = await mintAs(owner.headers, 'staying');

    const listed = await api.get('/merchant/api-keys', { headers: owner.headers, query: { created_by: admin.userId } });
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.body.data.map((key: any) => key.id)).to.deep.equal([theirs.id]);

    const removed = await api.delete(`/merchant/members/${admin.memberId}`, {
      headers: owner.headers,
      query: { revoke_keys: true },
    });
    expect(removed.status, removed.text).to.equal(204);
    expectError(await api.get('/customers', { key: theirs.key }), 401);
    expect((await api.get('/customers', { key: ours.key })).status).to.equal(200);

    const records = await activity(tenant);
    const removal = records.find((record) => record.action === 'member.removed');
    expect(removal.actor).to.deep.equal({ type: 'dashboard_user', id: owner.userId });
    expect(removal.changes).to.deep.include({ api_keys_revoked: [theirs.id], api_keys_kept: [] });
    const revocation = records.find((record) => record.action === 'api_key.revoked');
    expect(revocation).to.deep.include({ actor: { type: 'dashboard_user', id: owner.userId } });
    expect(revocation.changes).to.deep.include({ api_key_id: theirs.id });
  });

  it('removal without revoke_keys leaves the keys working and the removal record names them', async () => {
    const admin = await member(tenant, 'admin');
    const theirs = await mintAs(admin.headers, 'kept');
    const removed = await api.delete(`/merchants/${tenant.merchant_id}/members/${admin.memberId}`, {
      key: tenant.organization_secret_key,
    });
    expect(removed.status, removed.text).to.equal(204);
    expect((await api.get('/customers', { key: theirs.key })).status).to.equal(200);
    const removal = (await activity(tenant)).find((record) => record.action === 'member.removed');
    expect(removal.changes).to.deep.include({ api_keys_revoked: [], api_keys_kept: [theirs.id] });

    const listed = await api.get(`/merchants/${tenant.merchant_id}/api-keys`, {
      key: tenant.organization_secret_key,
      query: { created_by: admin.userId },
    });
    expect(listed.body.data.map((key: any) => key.id)).to.deep.equal([theirs.id]);
  });

  it('the organization key removes a member and revokes their keys in one request', async () => {
    const admin = await member(tenant, 'admin');
    const theirs = await mintAs(admin.headers, 'gone');
    const removed = await api.delete(`/merchants/${tenant.merchant_id}/members/${admin.memberId}`, {
      key: tenant.organization_secret_key,
      query: { revoke_keys: 'true' },
    });
    expect(removed.status, removed.text).to.equal(204);
    expectError(await api.get('/customers', { key: theirs.key }), 401);
  });
});
