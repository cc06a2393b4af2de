/**
 * Document 1, Invitations: creating a merchant e-mails its owner an invitation (read back from the mail catcher);
 * verify / accept / decline with the token as the only credential (hashed at rest, 7 days, single use), and the
 * merchant Dashboard's POST /auth/merchant/accept-invitation.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, uniqueEmail, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { rows } from '../helpers/db';
import { createMerchant } from '../helpers/merchants';
import { tokenIn, waitForMail } from '../helpers/mail';
import { NEW_PASSWORD, PASSWORD, bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { stack } from '../helpers/stack';

const INVALID = {
  valid: false,
  email: null,
  organization_name: null,
  role: null,
  inviter_name: null,
  expires_at: null,
  is_new_user: false,
};

async function invite(
  tenant: Tenant,
  email = uniqueEmail('owner'),
): Promise<{ merchantId: string; token: string; email: string }> {
  const receipt = await createMerchant(tenant, { primary_email: email });
  const [mail] = await waitForMail(email);
  expect(mail.subject).to.match(/invited/);
  return { merchantId: receipt.id, token: tokenIn(mail), email };
}

describe('Invitations', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('creating a merchant e-mails the owner a token that verifies (is_new_user, role, organization, 7 days); only its hash is stored', async () => {
    const { token, email, merchantId } = await invite(tenant);
    const res = await api.get('/invitations/verify', { query: { token } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(Object.keys(INVALID));
    expect(res.body).to.include({ valid: true, email, role: 'owner', inviter_name: null, is_new_user: true });
    const [org] = await rows('select name from organizations where id = ?', [tenant.organization_id]);
    expect(res.body.organization_name).to.equal(org.name);
    const days = (Date.parse(res.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).to.be.within(6.9, 7);
    const [member] = await rows('select invitation_token_hash from merchant_members where merchant_id = ?', [
      merchantId,
    ]);
    expect(member.invitation_token_hash)
      .to.match(/^[0-9a-f]{64}$/)
      .and.not.equal(token);
  });

  it('verify answers 200 valid:false with null fields for an unknown or expired token, 400 without one', async () => {
    expect((await api.get('/invitations/verify', { query: { token: 'nope' } })).body).to.deep.equal(INVALID);
    const { token, merchantId } = await invite(tenant);
    await rows(
      "update merchant_members set invitation_expires_at = now() - interval '1 second' where merchant_id = ?",
      [merchantId],
    );
    const expired = await api.get('/invitations/verify', { query: { token } });
    expect(expired.status).to.equal(200);
    expect(expired.body).to.deep.equal(INVALID);
    expectError(
      await api.post('/invitations/accept', {
        body: { token, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD },
      }),
      401,
    );
    expectError(await api.get('/invitations/verify'), 400, 'validation_error');
  });

  it('accept: 400 for a missing, mismatched or weak password; then 201 empty, membership active, sign-in works, token used up', async () => {
    const { token, email, merchantId } = await invite(tenant);
    expectError(await api.post('/invitations/accept', { body: { token } }), 400, 'validation_error');
    expectError(
      await api.post('/invitations/accept', { body: { token, password: NEW_PASSWORD, confirm_password: PASSWORD } }),
      400,
      'validation_error',
    );
    expectError(
      await api.post('/invitations/accept', {
        body: { token, password: 'weakpassword', confirm_password: 'weakpassword' },
      }),
      400,
      'validation_error',
    );
    expectError(await api.post('/invitations/accept', { body: {} }), 400, 'validation_error');
    const accepted = await api.post('/invitations/accept', {
      body: { token, name: 'Olivia O.', password: NEW_PASSWORD, confirm_password: NEW_PASSWORD },
    });
    expect(accepted.status, accepted.text).to.equal(201);
    expect(accepted.text).to.equal('');
    const session = await signIn('merchant', { email, password: NEW_PASSWORD });
    expect(session.user.name).to.equal('Olivia O.');
    expect(session.user.merchants).to.deep.include.members([
      { ...session.user.merchants.find((m: any) => m.merchant_id === merchantId), status: 'active', role: 'owner' },
    ]);
    const again = await api.post('/invitations/accept', {
      body: { token, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD },
    });
    expectError(again, 401, 'authentication_error');
    expect((await api.get('/invitations/verify', { query: { token } })).body).to.deep.equal(INVALID);
  });

  it('an existing user accepts without a password (is_new_user false)', async () => {
    const existing = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const { token, merchantId } = await invite(tenant, existing.email);
    expect((await api.get('/invitations/verify', { query: { token } })).body.is_new_user).to.equal(false);
    expect((await api.post('/invitations/accept', { body: { token } })).status).to.equal(201);
    const session = await signIn('merchant', existing);
    const listed = await api.get('/auth/merchant/memberships', { headers: bearer(session.access_token) });
    expect(listed.body.memberships.map((m: any) => m.merchant_id)).to.include(merchantId);
  });

  it('decline: 201 empty, the invitee is not added, the token is used up', async () => {
    const { token, merchantId } = await invite(tenant);
    const declined = await api.post('/invitations/decline', { body: { token } });
    expect(declined.status, declined.text).to.equal(201);
    expect(declined.text).to.equal('');
    expect(await rows('select id from merchant_members where merchant_id = ?', [merchantId])).to.have.length(0);
    expectError(await api.post('/invitations/decline', { body: { token } }), 401, 'authentication_error');
    expectError(await api.post('/invitations/decline', { body: {} }), 400, 'validation_error');
  });
});

describe('POST /auth/merchant/accept-invitation', () => {
  it('sets the password, activates the membership and answers {message, email}; the token works once', async () => {
    const tenant = await createTenant();
    const { token, email } = await invite(tenant);
    expectError(await api.post('/auth/merchant/accept-invitation', { body: { token, password: 'short' } }), 400);
    const res = await api.post('/auth/merchant/accept-invitation', { body: { token, password: NEW_PASSWORD } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(['message', 'email']);
    expect(res.body.email).to.equal(email);
    await signIn('merchant', { email, password: NEW_PASSWORD });
    expectError(await api.post('/auth/merchant/accept-invitation', { body: { token, password: NEW_PASSWORD } }), 401);
  });

  it('an existing account must give its own password: the link is no way to take it over', async () => {
    const tenant = await createTenant();
    const existing = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const { token } = await invite(tenant, existing.email);
    const res = await api.post('/auth/merchant/accept-invitation', { body: { token, password: NEW_PASSWORD } });
    expectError(res, 401, 'authentication_error');
    await signIn('merchant', existing);
    const ok = await api.post('/auth/merchant/accept-invitation', { body: { token, password: PASSWORD } });
    expect(ok.status, ok.text).to.equal(200);
  });
});

describe('Invitations: an existing account is changed only with its password, through the sign-in throttles', () => {
  it('POST /invitations/accept renames an existing account only with its password (400 without, 401 wrong)', async () => {
    const tenant = await createTenant();
    const existing = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const { token } = await invite(tenant, existing.email);
    const nameOf = async () => (await rows('select name from merchant_users where id = ?', [existing.id]))[0].name;
    const before = await nameOf();
    expectError(await api.post('/invitations/accept', { body: { token, name: 'pwned' } }), 400, 'validation_error');
    expectError(
      await api.post('/invitations/accept', { body: { token, name: 'pwned', password: NEW_PASSWORD } }),
      401,
      'authentication_error',
    );
    expect(await nameOf()).to.equal(before);
    const renamed = await api.post('/invitations/accept', { body: { token, name: 'Mia M.', password: PASSWORD } });
    expect(renamed.status, renamed.text).to.equal(201);
    expect(await nameOf()).to.equal('Mia M.');
  });

  it('POST /auth/merchant/accept-invitation counts wrong passwords like logins: the account locks for the window', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const existing = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const { token } = await invite(tenant, existing.email);
    const accept = (password: string) => api.post('/auth/merchant/accept-invitation', { body: { token, password } });
    const failures = stack().config.dashboard.loginFailuresPerEmail;
    for (let i = 0; i < failures; i += 1) expectError(await accept(`Wrong-Password-${i}`), 401);
    // Locked: even the right password answers like a wrong one until the window ends.
    expectError(await accept(PASSWORD), 401, 'authentication_error');
  });
});
