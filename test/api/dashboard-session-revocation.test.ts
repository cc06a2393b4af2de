/**
 * Sessions end when they should: logout, a password change or reset, an organization switch and a refresh-token
 * reuse revoke the access tokens of the session too (not only its refresh tokens), at once rather than at the access
 * token's expiry (RFC 9700 §4.14). Access tokens of other sessions live on where the event is per session.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { bearer, createMerchantUser, createOrganizationUser, NEW_PASSWORD, signIn } from '../helpers/dashboard';
import { tokenIn, waitForMail } from '../helpers/mail';
import { startApi } from '../../api/server';
import { stack } from '../helpers/stack';
import { waitUntil } from '../helpers/webhooks';

const memberships = (token: string) => api.get('/auth/merchant/memberships', { headers: bearer(token) });

async function merchantUser() {
  const tenant = await createTenant();
  return createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
}

function expectEnded(res: Awaited<ReturnType<typeof memberships>>): void {
  const error = expectError(res, 401, 'authentication_error', 'INVALID_CREDENTIALS');
  expect(error.message).to.match(/session has ended/);
}

describe('Dashboard sessions: revoking a session ends its access tokens at once', () => {
  it('logout ends the access token of that session; another session of the user goes on', async () => {
    const user = await merchantUser();
    const [first, second] = [await signIn('merchant', user), await signIn('merchant', user)];
    expect((await memberships(first.access_token)).status).to.equal(200);
    const out = await api.post('/auth/logout', { headers: bearer(first.access_token) });
    expect(out.status, out.text).to.equal(200);
    expectEnded(await memberships(first.access_token));
    expect((await memberships(second.access_token)).status).to.equal(200);
  });

  it('a password change ends every access token of the account', async () => {
    const user = await merchantUser();
    const session = await signIn('merchant', user);
    expect((await memberships(session.access_token)).status).to.equal(200);
    const changed = await api.post('/auth/merchant/change-password', {
      body: { email: user.email, current_password: user.password, new_password: NEW_PASSWORD },
    });
    expect(changed.status, changed.text).to.equal(200);
    expectEnded(await memberships(session.access_token));
  });

  it('a password reset ends every access token of the account', async () => {
    const user = await merchantUser();
    const session = await signIn('merchant', user);
    expect((await memberships(session.access_token)).status).to.equal(200);
    expect((await api.post('/auth/merchant/forgot-password', { body: { email: user.email } })).status).to.equal(202);
    const [mail] = await waitForMail(user.email);
    const done = await api.post('/auth/reset-password', { body: { token: tokenIn(mail), new_password: NEW_PASSWORD } });
    expect(done.status, done.text).to.equal(200);
    expectEnded(await memberships(session.access_token));
  });

  it('a refresh-token reuse ends the access tokens of the whole family, the thief’s and the owner’s', async () => {
    const user = await merchantUser();
    const login = await signIn('merchant', user);
    const rotated = await api.post('/auth/refresh', { body: { refresh_token: login.refresh_token } });
    expect(rotated.status, rotated.text).to.equal(200);
    expect((await memberships(rotated.body.access_token)).status).to.equal(200);
    expectError(await api.post('/auth/refresh', { body: { refresh_token: login.refresh_token } }), 401);
    expectEnded(await memberships(rotated.body.access_token));
    expectEnded(await memberships(login.access_token));
  });

  it('an organization switch ends the access token of the session it replaces', async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const user = await createOrganizationUser([a.organization_id, b.organization_id]);
    const session = await signIn('organization', user);
    const orgMemberships = (token: string) => api.get('/auth/organization/memberships', { headers: bearer(token) });
    expect((await orgMemberships(session.access_token)).status).to.equal(200);
    const other = session.organization_id === a.organization_id ? b.organization_id : a.organization_id;
    const switched = await api.post('/auth/organization/switch', {
      headers: bearer(session.access_token),
      body: { organization_id: other },
    });
    expect(switched.status, switched.text).to.equal(200);
    expect((await orgMemberships(switched.body.access_token)).status).to.equal(200);
    expectEnded(await orgMemberships(session.access_token));
  });

  it('another API process, which had the session cached as live, refuses it once the revocation is notified', async () => {
    const other = await startApi(stack().config, 0);
    try {
      const user = await merchantUser();
      const session = await signIn('merchant', user);
      const there = (token: string) =>
        api.get('/auth/merchant/memberships', { baseUrl: other.url, headers: bearer(token) });
      expect((await there(session.access_token)).status).to.equal(200);
      expect((await api.post('/auth/logout', { headers: bearer(session.access_token) })).status).to.equal(200);
      await waitUntil(async () => (await there(session.access_token)).status === 401, 5_000, 'the other process');
    } finally {
      await other.stop();
    }
  });
});
