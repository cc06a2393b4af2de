/**
 * Merchant team (docs/api-decisions.md, "Merchant team"): the organization key and merchant owners/admins in the
 * Dashboard invite members by e-mail (a pending member and the invitation link), change roles, remove members,
 * revoke and resend pending invitations; only an owner touches an owner; the last owner stays; a viewer reads and
 * never moves money.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, uniqueEmail, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { rows } from '../helpers/db';
import { activityOf, MEMBER_KEYS } from '../helpers/merchants';
import { mailTo, tokenIn, waitForMail } from '../helpers/mail';
import { NEW_PASSWORD, bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

async function dashboardAs(tenant: Tenant, role: 'owner' | 'admin' | 'viewer') {
  const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role });
  const { access_token: token } = await signIn('merchant', user);
  const [member] = await rows('select id from merchant_members where user_id = ?', [user.id]);
  return {
    headers: bearer(token as string, { 'x-merchant-id': tenant.merchant_id }),
    memberId: member.id as string,
    email: user.email,
  };
}

describe('Merchant team: invitations, roles and removal', function () {
  this.timeout(90_000);
  let tenant: Tenant;
  let key: string;
  beforeEach(async () => {
    tenant = await createTenant();
    key = tenant.organization_secret_key;
  });

  it('the organization key invites a member: 201 pending member, an e-mail whose link accepts, then the member is active and can sign in', async () => {
    const email = uniqueEmail('colleague');
    const res = await api.post(`/merchants/${tenant.merchant_id}/members`, {
      key,
      body: { email: email.toUpperCase(), name: 'Cora Colleague', role: 'admin' },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.have.all.keys(MEMBER_KEYS);
    expect(res.body).to.include({ email, name: 'Cora Colleague', role: 'admin', status: 'pending', joined_at: null });
    expect(res.body.invitation_expires_at).to.be.a('string');
    expect(JSON.stringify(res.body)).to.not.match(/token/i);

    const [mail] = await waitForMail(email);
    expect(mail.subject).to.match(/invited/);
    expect(mail.text).to.include('as admin');
    const token = tokenIn(mail);
    const accepted = await api.post('/auth/merchant/accept-invitation', { body: { token, password: NEW_PASSWORD } });
    expect(accepted.status, accepted.text).to.equal(200);
    await signIn('merchant', { email, password: NEW_PASSWORD });

    const list = await api.get(`/merchants/${tenant.merchant_id}/members`, { key });
    expect(list.body.data.find((m: any) => m.email === email)).to.include({ status: 'active', role: 'admin' });
    const actions = (await activityOf(tenant.merchant_id)).map((row) => row.action);
    expect(actions).to.include.members(['member.invited', 'member.joined']);
  });

  it('inviting someone who is a member or invited already is 409 MEMBER_ALREADY_EXISTS and sends nothing more', async () => {
    const email = uniqueEmail('twice');
    const first = await api.post(`/merchants/${tenant.merchant_id}/members`, { key, body: { email, role: 'viewer' } });
    expect(first.status, first.text).to.equal(201);
    const again = await api.post(`/merchants/${tenant.merchant_id}/members`, { key, body: { email, role: 'admin' } });
    expectError(again, 409, undefined, 'MEMBER_ALREADY_EXISTS');
    await waitForMail(email);
    expect(await mailTo(email)).to.have.length(1);
    const members = await rows('select role from merchant_members where merchant_id = ?', [tenant.merchant_id]);
    expect(members.map((m) => m.role)).to.deep.equal(['viewer']);
  });

  it("refuses a bad role, a bad e-mail and another organization's merchant, changing nothing", async () => {
    const path = `/merchants/${tenant.merchant_id}/members`;
    expectError(await api.post(path, { key, body: { email: uniqueEmail(), role: 'superuser' } }), 400);
    expectError(await api.post(path, { key, body: { email: 'not-an-email', role: 'viewer' } }), 400);
    const other = await createTenant();
    const foreign = await api.post(`/merchants/${other.merchant_id}/members`, {
      key,
      body: { email: uniqueEmail(), role: 'viewer' },
    });
    expectError(foreign, 404);
    expect(
      await rows('select id from merchant_members where merchant_id in (?, ?)', [
        tenant.merchant_id,
        other.merchant_id,
      ]),
    ).to.have.length(0);
  });

  it('resending a pending invitation mails a new link and the previous one stops working; revoking makes the link invalid', async () => {
    const email = uniqueEmail('resend');
    const invited = await api.post(`/merchants/${tenant.merchant_id}/members`, {
      key,
      body: { email, role: 'viewer' },
    });
    const [first] = await waitForMail(email);
    const resent = await api.post(
      `/merchants/${tenant.merchant_id}/members/${invited.body.membership_id}/resend-invitation`,
      { key },
    );
    expect(resent.status, resent.text).to.equal(200);
    expect(resent.body).to.include({ status: 'pending', membership_id: invited.body.membership_id });
    const mails = await waitForMail(email, 2);
    const second = mails.find((mail) => mail.id !== first.id)!;
    expect((await api.get('/invitations/verify', { query: { token: tokenIn(first) } })).body.valid).to.equal(false);
    expect((await api.get('/invitations/verify', { query: { token: tokenIn(second) } })).body.valid).to.equal(true);

    const revoked = await api.delete(`/merchants/${tenant.merchant_id}/members/${invited.body.membership_id}`, { key });
    expect(revoked.status, revoked.text).to.equal(204);
    expect((await api.get('/invitations/verify', { query: { token: tokenIn(second) } })).body.valid).to.equal(false);
    const actions = (await activityOf(tenant.merchant_id)).map((row) => row.action);
    expect(actions).to.include.members(['member.invitation_resent', 'member.invitation_revoked']);
  });

  it('resending to an active member is 409 MEMBER_ALREADY_ACTIVE; an unknown member is 404', async () => {
    const owner = await dashboardAs(tenant, 'owner');
    expectError(
      await api.post(`/merchants/${tenant.merchant_id}/members/${owner.memberId}/resend-invitation`, { key }),
      409,
      undefined,
      'MEMBER_ALREADY_ACTIVE',
    );
    expectError(await api.delete(`/merchants/${tenant.merchant_id}/members/mbr_doesnotexist`, { key }), 404);
  });

  it('the last owner cannot be removed or demoted (409 LAST_OWNER); with a second owner both work', async () => {
    const owner = await dashboardAs(tenant, 'owner');
    const path = `/merchants/${tenant.merchant_id}/members/${owner.memberId}`;
    expectError(await api.delete(path, { key }), 409, undefined, 'LAST_OWNER');
    expectError(await api.patch(path, { key, body: { role: 'admin' } }), 409, undefined, 'LAST_OWNER');
    // A pending owner is no owner yet: it does not let the active one go.
    await api.post(`/merchants/${tenant.merchant_id}/members`, { key, body: { email: uniqueEmail(), role: 'owner' } });
    expectError(await api.delete(path, { key }), 409, undefined, 'LAST_OWNER');

    await dashboardAs(tenant, 'owner');
    const demoted = await api.patch(path, { key, body: { role: 'viewer' } });
    expect(demoted.status, demoted.text).to.equal(200);
    expect(demoted.body.role).to.equal('viewer');
    expect((await api.delete(path, { key })).status).to.equal(204);
  });

  it('in the Dashboard an owner invites, changes roles and removes; an admin manages admins and viewers but not owners', async () => {
    const owner = await dashboardAs(tenant, 'owner');
    const admin = await dashboardAs(tenant, 'admin');
    const email = uniqueEmail('dash-invite');
    const invited = await api.post('/merchant/members', { headers: owner.headers, body: { email, role: 'viewer' } });
    expect(invited.status, invited.text).to.equal(201);
    const [mail] = await waitForMail(email);
    expect(mail.text).to.include(`Invited by ${owner.email} (“Mia Merchant”)`);

    const promoted = await api.patch(`/merchant/members/${invited.body.membership_id}`, {
      headers: admin.headers,
      body: { role: 'admin' },
    });
    expect(promoted.status, promoted.text).to.equal(200);
    expectError(
      await api.patch(`/merchant/members/${invited.body.membership_id}`, {
        headers: admin.headers,
        body: { role: 'owner' },
      }),
      403,
    );
    expectError(await api.delete(`/merchant/members/${owner.memberId}`, { headers: admin.headers }), 403);
    expectError(
      await api.post('/merchant/members', { headers: admin.headers, body: { email: uniqueEmail(), role: 'owner' } }),
      403,
    );
    const list = await api.get('/merchant/members', { headers: admin.headers });
    expect(list.status, list.text).to.equal(200);
    expect(list.body.data.map((m: any) => m.membership_id)).to.include.members([
      owner.memberId,
      invited.body.membership_id,
    ]);
    expect(list.body.meta).to.include({ total: 3 });

    expectError(
      await api.delete(`/merchant/members/${owner.memberId}`, { headers: owner.headers }),
      409,
      undefined,
      'LAST_OWNER',
    );
    expect((await api.delete(`/merchant/members/${admin.memberId}`, { headers: owner.headers })).status).to.equal(204);
    const [activity] = (await activityOf(tenant.merchant_id)).filter((row) => row.action === 'member.removed');
    expect(activity).to.include({ actor_type: 'dashboard_user' });
  });

  it("another merchant's member id is 404 in the Dashboard (every query is scoped to the header merchant)", async () => {
    const owner = await dashboardAs(tenant, 'owner');
    const other = await createTenant();
    const theirs = await createMerchantUser(other.organization_id, [other.merchant_id], { role: 'admin' });
    const [member] = await rows('select id from merchant_members where user_id = ?', [theirs.id]);
    expectError(await api.delete(`/merchant/members/${member.id}`, { headers: owner.headers }), 404);
    expectError(
      await api.patch(`/merchant/members/${member.id}`, { headers: owner.headers, body: { role: 'viewer' } }),
      404,
    );
    expect(await rows('select role from merchant_members where id = ?', [member.id])).to.deep.equal([
      { role: 'admin' },
    ]);
  });

  it('a viewer reads the team and payments but is refused (403) on invitations, role changes, capture, void and refund', async () => {
    const viewer = await dashboardAs(tenant, 'viewer');
    const owner = await dashboardAs(tenant, 'owner');
    await cascade(tenant, ['provider_a']);
    const held = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false, amount: 2500 }));
    expect(held.status, held.text).to.equal(201);
    const paid = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(paid.status, paid.text).to.equal(201);
    const headers = viewer.headers;

    expect((await api.get('/merchant/members', { headers })).status).to.equal(200);
    expect((await api.get(`/merchant/transactions/${held.body.data.id}`, { headers })).status).to.equal(200);
    expectError(await api.post('/merchant/members', { headers, body: { email: uniqueEmail(), role: 'viewer' } }), 403);
    expectError(await api.patch(`/merchant/members/${owner.memberId}`, { headers, body: { role: 'viewer' } }), 403);
    const held_ = held.body.data.id;
    expectError(await api.post(`/merchant/transactions/${held_}/capture`, { headers, body: {} }), 403);
    expectError(await api.post(`/merchant/transactions/${held_}/void`, { headers, body: {} }), 403);
    expectError(
      await api.post(`/merchant/transactions/${paid.body.data.id}/refunds`, {
        headers: { ...headers, 'idempotency-key': `refund-${held_}` },
        body: { amount: 100 },
      }),
      403,
    );
    const [tx] = await rows('select status from transactions where id = ?', [held_]);
    expect(tx.status).to.equal('pre_authorized');
    expect(await rows('select id from refunds where transaction_id = ?', [paid.body.data.id])).to.have.length(0);
  });
});
