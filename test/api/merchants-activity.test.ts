/**
 * The merchant activity log (GET /merchants/:id/activity), the owner membership made on create, and the
 * members listing (GET /merchants/:merchant_id/members). Invitation tokens never leave the server.
 */
import { expect } from 'chai';
import { api, type ApiResponse } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, ISO_UTC_MS } from '../helpers/envelope';
import { ACTIVITY_KEYS, createMerchant, keyId, MEMBER_KEYS, merchantBody, rows, unique } from '../helpers/merchants';

const DAY = 24 * 60 * 60 * 1000;

describe('GET /api/v1/merchants/:id/activity', () => {
  let tenant: Tenant;
  let merchant: any;
  const activity = (id = merchant.id, query = {}, key = tenant.organization_secret_key) =>
    api.get(`/merchants/${id}/activity`, { key, query });

  beforeEach(async () => {
    tenant = await createTenant();
    merchant = await createMerchant(tenant, { external_reference: null, website: null });
  });

  it('records merchant.created (the created fields) and member.invited, by the acting key, bare with meta.pagination', async () => {
    const res = await activity();
    expect(res.status, res.text).to.equal(200);
    expect(res.body.meta).to.deep.equal({
      pagination: { page: 1, limit: 20, total: 2, total_pages: 1, has_next: false, has_prev: false },
    });
    const actorId = await keyId(tenant.organization_secret_key);
    for (const record of res.body.data) {
      expect(Object.keys(record).sort()).to.deep.equal(ACTIVITY_KEYS);
      expect(record.id).to.match(/^act_/);
      expect(record).to.deep.include({ merchant_id: merchant.id, actor: { type: 'api_key', id: actorId } });
      expect(record.created_at).to.match(ISO_UTC_MS);
    }
    const created = res.body.data.find((record: any) => record.action === 'merchant.created');
    expect(created.changes).to.deep.include({
      name: { from: null, to: merchant.name },
      slug: { from: null, to: merchant.slug },
      status: { from: null, to: 'active' },
      phone_number: { from: null, to: '+5511987654321' },
    });
    // Fields left null on create are not listed.
    expect(created.changes).not.to.have.any.keys('external_reference', 'website');
    const [member] = await rows('select * from merchant_members where merchant_id = ?', [merchant.id]);
    const invited = res.body.data.find((record: any) => record.action === 'member.invited');
    expect(invited.changes).to.include({
      membership_id: member.id,
      user_id: member.user_id,
      role: 'owner',
      new_user: true,
    });
  });

  it('records merchant.updated with a {from, to} diff of what changed, by the acting key', async () => {
    const key = await keyWithScopes(tenant, ['merchants:write'], 'organization');
    await api.patch(`/merchants/${merchant.id}`, {
      key,
      body: { status: 'suspended', mcc: '5734', phone_number: '+1 415 555 0100' },
    });
    const [latest] = (await activity()).body.data;
    expect(latest).to.deep.include({ action: 'merchant.updated', actor: { type: 'api_key', id: await keyId(key) } });
    // mcc was already 5734: unchanged fields are not in the diff.
    expect(latest.changes).to.deep.equal({
      status: { from: 'active', to: 'suspended' },
      phone_number: { from: '+5511987654321', to: '+14155550100' },
    });
  });

  it('records nothing for a PATCH that changes nothing, or one that fails', async () => {
    await api.patch(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key, body: { status: 'active' } });
    await api.patch(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key, body: { status: 'closed' } });
    expect((await activity()).body.meta.pagination.total).to.equal(2);
  });

  it('lists newest first and pages', async () => {
    for (const status of ['inactive', 'suspended', 'active']) {
      await api.patch(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key, body: { status } });
    }
    const first = await activity(merchant.id, { limit: 2 });
    expect(first.body.data.map((record: any) => record.changes.status.to)).to.deep.equal(['active', 'suspended']);
    expect(first.body.meta.pagination).to.include({ total: 5, total_pages: 3, has_next: true });
    const last = await activity(merchant.id, { page: 3, limit: 2 });
    expect(last.body.data).to.have.length(1);
  });

  it('rejects limit 0 and unknown parameters with 400', async () => {
    expectFieldErrors(await activity(merchant.id, { limit: 0 }), ['limit']);
    expectFieldErrors(await activity(merchant.id, { action: 'merchant.created' }), ['action']);
  });

  it("returns 404 for another organization's merchant", async () => {
    const other = await createTenant();
    expectError(await activity(other.merchant_id), 404, 'not_found_error');
  });

  it('refuses a merchant key (403) and an organization key without merchants:read (403)', async () => {
    expectError(await activity(tenant.merchant_id, {}, tenant.merchant_secret_key), 403, 'authorization_error');
    const key = await keyWithScopes(tenant, ['merchants:write'], 'organization');
    expectError(await activity(merchant.id, {}, key), 403, 'authorization_error');
  });
});

describe('The owner membership made by POST /merchants', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('provisions a user (e-mail lowercased, name = primary_name) with a pending owner membership expiring in 7 days', async () => {
    const email = `${unique('New.Owner')}@Example.COM`;
    const receipt = await createMerchant(tenant, { primary_email: email, primary_name: 'Nora New' });
    const [user] = await rows('select * from merchant_users where organization_id = ?', [tenant.organization_id]);
    expect(user).to.include({ email: email.toLowerCase(), name: 'Nora New', password_hash: null });
    const [member] = await rows('select * from merchant_members where merchant_id = ?', [receipt.id]);
    expect(member).to.include({ user_id: user.id, role: 'owner', status: 'pending', joined_at: null });
    expect(Math.abs(new Date(member.invitation_expires_at).getTime() - (Date.now() + 7 * DAY))).to.be.below(60_000);
  });

  it('gives an existing user of the organization (matched case-insensitively) the membership, keeping their name', async () => {
    const email = `${unique('existing')}@example.com`;
    await createMerchant(tenant, { primary_email: email, primary_name: 'First Name' });
    const second = await createMerchant(tenant, { primary_email: email.toUpperCase(), primary_name: 'Other Name' });
    const users = await rows('select * from merchant_users where organization_id = ?', [tenant.organization_id]);
    expect(users).to.have.length(1);
    expect(users[0].name).to.equal('First Name');
    const [member] = await rows('select * from merchant_members where merchant_id = ?', [second.id]);
    expect(member).to.include({ user_id: users[0].id, role: 'owner', status: 'pending' });
    const invited = (
      await api.get(`/merchants/${second.id}/activity`, { key: tenant.organization_secret_key })
    ).body.data.find((record: any) => record.action === 'member.invited');
    expect(invited.changes.new_user).to.equal(false);
  });

  it("does not reuse another organization's user with the same e-mail", async () => {
    const email = `${unique('twin')}@example.com`;
    const other = await createTenant();
    await createMerchant(other, { primary_email: email });
    await createMerchant(tenant, { primary_email: email });
    const users = await rows('select organization_id from merchant_users where email = ?', [email]);
    expect(users.map((user) => user.organization_id)).to.have.members([other.organization_id, tenant.organization_id]);
  });

  it('stores only a SHA-256 hash of a fresh invitation token, and no response or activity record carries it', async () => {
    const headers = { 'Idempotency-Key': unique('inv') };
    const body = merchantBody();
    const responses: ApiResponse[] = [];
    responses.push(await api.post('/merchants', { key: tenant.organization_secret_key, body, headers }));
    responses.push(await api.post('/merchants', { key: tenant.organization_secret_key, body, headers }));
    const id = responses[0].body.id;
    const other = await createMerchant(tenant);
    for (const path of [`/merchants/${id}`, `/merchants/${id}/activity`, `/merchants/${id}/members`, '/merchants']) {
      responses.push(await api.get(path, { key: tenant.organization_secret_key }));
    }
    const [member] = await rows('select * from merchant_members where merchant_id = ?', [id]);
    const [otherMember] = await rows('select invitation_token_hash from merchant_members where merchant_id = ?', [
      other.id,
    ]);
    expect(member.invitation_token_hash).to.match(/^[0-9a-f]{64}$/);
    expect(otherMember.invitation_token_hash)
      .to.match(/^[0-9a-f]{64}$/)
      .and.not.equal(member.invitation_token_hash);
    // Nothing but the hash could be the token: no other column holds a long random string.
    const stored = Object.entries(member)
      .filter(([column]) => column !== 'invitation_token_hash')
      .map(([, value]) => String(value));
    for (const value of stored) expect(value).not.to.match(/^[A-Za-z0-9_-]{43,}$/);
    const [activityText] = await rows(
      "select string_agg(changes::text, ' ') as text from merchant_activities where merchant_id = ?",
      [id],
    );
    for (const text of [...responses.map((res) => res.text), activityText.text]) {
      expect(text).not.to.include(member.invitation_token_hash);
      expect(text.toLowerCase()).not.to.include('token');
    }
  });
});

describe('GET /api/v1/merchants/:merchant_id/members', () => {
  let tenant: Tenant;
  let merchant: any;
  const members = (id = merchant.id, key = tenant.organization_secret_key, query = {}) =>
    api.get(`/merchants/${id}/members`, { key, query });

  beforeEach(async () => {
    tenant = await createTenant();
    merchant = await createMerchant(tenant, {
      primary_email: `${unique('owner')}@example.com`,
      primary_name: 'Olivia Owner',
    });
  });

  it('lists the pending owner, bare with meta.pagination', async () => {
    const res = await members();
    expect(res.status, res.text).to.equal(200);
    expect(res.body.meta).to.deep.equal({
      pagination: { page: 1, limit: 20, total: 1, total_pages: 1, has_next: false, has_prev: false },
    });
    const [owner] = res.body.data;
    expect(Object.keys(owner).sort()).to.deep.equal(MEMBER_KEYS);
    const [row] = await rows('select * from merchant_members where merchant_id = ?', [merchant.id]);
    expect(owner).to.include({
      membership_id: row.id,
      user_id: row.user_id,
      name: 'Olivia Owner',
      role: 'owner',
      status: 'pending',
      joined_at: null,
    });
    expect(owner.email).to.match(/^owner-.*@example\.com$/);
    expect(owner.invitation_expires_at).to.equal(new Date(row.invitation_expires_at).toISOString());
  });

  it('shows an accepted membership as active with joined_at and no invitation expiry', async () => {
    await rows(
      `update merchant_members set status = 'active', joined_at = now(), invitation_token_hash = null where merchant_id = ?`,
      [merchant.id],
    );
    const [owner] = (await members()).body.data;
    expect(owner).to.include({ status: 'active', invitation_expires_at: null });
    expect(owner.joined_at).to.match(ISO_UTC_MS);
  });

  it('lists an empty page for a merchant without members', async () => {
    const res = await members(tenant.merchant_id);
    expect(res.body).to.deep.equal({
      data: [],
      meta: { pagination: { page: 1, limit: 20, total: 0, total_pages: 0, has_next: false, has_prev: false } },
    });
  });

  it("returns 404 for another organization's merchant", async () => {
    const other = await createTenant();
    expectError(await members(other.merchant_id), 404, 'not_found_error');
  });

  it('refuses a merchant key (403) and an organization key without merchants:read (403)', async () => {
    expectError(await members(tenant.merchant_id, tenant.merchant_secret_key), 403, 'authorization_error');
    const key = await keyWithScopes(tenant, ['merchants:write'], 'organization');
    expectError(await members(merchant.id, key), 403, 'authorization_error');
  });

  it('rejects unknown query parameters with 400', async () => {
    expectFieldErrors(await members(merchant.id, tenant.organization_secret_key, { role: 'owner' }), ['role']);
  });
});
