/**
 * Document 1, Dashboard sign-in: three independent identities, JWT access tokens (HS256 pinned, iss/aud/sub/kid,
 * 900 s), opaque rotating refresh tokens with family revocation on reuse, logout, change-password, organization
 * switch, and the wall between Dashboard tokens and API keys.
 */
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { api } from '../helpers/http';
import { createTenant, addMerchant, uniqueEmail } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { rows } from '../helpers/db';
import { stack } from '../helpers/stack';
import {
  NEW_PASSWORD,
  PASSWORD,
  bearer,
  createAdminUser,
  createMerchantUser,
  createOrganizationUser,
  forgeAccessToken,
  signIn,
} from '../helpers/dashboard';

const TOKEN_KEYS = ['access_token', 'refresh_token', 'token_type', 'expires_in'];

function claimsOf(token: string): jwt.Jwt {
  return jwt.decode(token, { complete: true }) as jwt.Jwt;
}

describe('Dashboard sign-in: merchant login', () => {
  it('answers the Login response with the merchant memberships, last_login_at and a 900 s HS256 JWT (iss, aud, sub, kid)', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const res = await api.post('/auth/merchant/login', { body: { email: user.email, password: user.password } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(['user', ...TOKEN_KEYS]);
    expect(res.body.token_type).to.equal('Bearer');
    expect(res.body.expires_in).to.equal(900);
    expect(res.body.user).to.have.all.keys(['id', 'email', 'name', 'merchants', 'last_login_at']);
    expect(res.body.user).to.include({ id: user.id, email: user.email });
    expect(Math.abs(Date.parse(res.body.user.last_login_at) - Date.now())).to.be.below(60_000);
    expect(res.body.user.merchants).to.have.length(1);
    expect(res.body.user.merchants[0]).to.have.all.keys([
      'membership_id',
      'merchant_id',
      'merchant_name',
      'status',
      'role',
      'organization_id',
      'organization_name',
    ]);
    expect(res.body.user.merchants[0]).to.include({
      merchant_id: tenant.merchant_id,
      organization_id: tenant.organization_id,
      role: 'owner',
      status: 'active',
    });

    const { header, payload } = claimsOf(res.body.access_token) as { header: jwt.JwtHeader; payload: jwt.JwtPayload };
    expect(header.alg).to.equal('HS256');
    expect(header.kid).to.equal(stack().config.dashboard.keys.current.kid);
    expect(payload).to.include({ iss: 'switchyard', aud: 'switchyard-dashboard:merchant', sub: user.id });
    expect((payload.exp as number) - (payload.iat as number)).to.equal(900);
    expect(res.body.refresh_token).to.match(/^rt_[\w-]{43}$/);
    const [stored] = await rows('select token_hash from refresh_tokens where user_id = ?', [user.id]);
    expect(stored.token_hash).to.not.equal(res.body.refresh_token);
    expect(stored.token_hash).to.match(/^[0-9a-f]{64}$/);
  });

  it('stores passwords as argon2id at the OWASP parameters (m=19456, t=2, p=1)', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const [row] = await rows('select password_hash from merchant_users where id = ?', [user.id]);
    expect(row.password_hash).to.match(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('answers a wrong password and an unknown e-mail with the same 401', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const wrong = await api.post('/auth/merchant/login', { body: { email: user.email, password: 'Wrong-password-1' } });
    const unknown = await api.post('/auth/merchant/login', {
      body: { email: uniqueEmail('nobody'), password: PASSWORD },
    });
    expectError(wrong, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    expectError(unknown, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    expect(wrong.body.error.message).to.equal(unknown.body.error.message);
  });

  it('answers 400 validation_error for a missing password or a malformed e-mail', async () => {
    expectError(await api.post('/auth/merchant/login', { body: { email: 'a@example.com' } }), 400, 'validation_error');
    expectError(
      await api.post('/auth/merchant/login', { body: { email: 'not-an-email', password: PASSWORD } }),
      400,
      'validation_error',
    );
  });

  it('keeps the three identities independent: one e-mail, three accounts, each only at its own login', async () => {
    const tenant = await createTenant();
    const email = uniqueEmail('same');
    await createOrganizationUser([tenant.organization_id], { email });
    // Only the organization identity exists for this address: the merchant and admin logins do not know it.
    expectError(await api.post('/auth/merchant/login', { body: { email, password: PASSWORD } }), 401);
    expectError(await api.post('/auth/login', { body: { email, password: PASSWORD } }), 401);
    await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { email });
    await createAdminUser({ email });
    for (const identity of ['admin', 'organization', 'merchant'] as const) {
      const body = await signIn(identity, { email, password: PASSWORD });
      expect(claimsOf(body.access_token).payload).to.include({ aud: `switchyard-dashboard:${identity}` });
    }
  });
});

describe('Dashboard sign-in: organization login, memberships and switch', () => {
  it('signs in to the first organization and lists the organization memberships', async () => {
    const [first, second] = [await createTenant(), await createTenant()];
    const user = await createOrganizationUser([first.organization_id, second.organization_id]);
    const body = await signIn('organization', user);
    expect(body).to.have.all.keys(['user', 'organization_id', 'memberships', ...TOKEN_KEYS]);
    expect(body.organization_id).to.equal(first.organization_id);
    expect(claimsOf(body.access_token).payload).to.include({ org: first.organization_id });
    const listed = await api.get('/auth/organization/memberships', { headers: bearer(body.access_token) });
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.body.memberships.map((m: any) => m.organization_id)).to.deep.equal([
      first.organization_id,
      second.organization_id,
    ]);
    expect(listed.body.memberships[0]).to.have.all.keys([
      'membership_id',
      'organization_id',
      'organization_name',
      'role',
    ]);
  });

  it('switch re-mints the pair against another organization and ends the old session; 403 without membership', async () => {
    const [first, second, foreign] = [await createTenant(), await createTenant(), await createTenant()];
    const user = await createOrganizationUser([first.organization_id, second.organization_id]);
    const session = await signIn('organization', user);
    const refused = await api.post('/auth/organization/switch', {
      headers: bearer(session.access_token),
      body: { organization_id: foreign.organization_id },
    });
    expectError(refused, 403, 'authorization_error');
    const switched = await api.post('/auth/organization/switch', {
      headers: bearer(session.access_token),
      body: { organization_id: second.organization_id },
    });
    expect(switched.status, switched.text).to.equal(200);
    expect(switched.body).to.have.all.keys([...TOKEN_KEYS, 'organization_id']);
    expect(claimsOf(switched.body.access_token).payload).to.include({ org: second.organization_id });
    expectError(await api.post('/auth/refresh', { body: { refresh_token: session.refresh_token } }), 401);
    const refreshed = await api.post('/auth/refresh', { body: { refresh_token: switched.body.refresh_token } });
    expect(refreshed.status, refreshed.text).to.equal(200);
    expect(claimsOf(refreshed.body.access_token).payload).to.include({ org: second.organization_id });
  });

  it('lists merchant memberships for a merchant user, pending ones included with their status', async () => {
    const tenant = await createTenant();
    const other = await addMerchant(tenant);
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    await createMerchantUser(tenant.organization_id, [], { email: `x${user.email}` });
    const body = await signIn('merchant', user);
    const listed = await api.get('/auth/merchant/memberships', { headers: bearer(body.access_token) });
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.body.memberships.map((m: any) => m.merchant_id)).to.deep.equal([tenant.merchant_id]);
    expect(listed.body.memberships.map((m: any) => m.merchant_id)).to.not.include(other.merchantId);
  });
});

describe('Dashboard sessions: refresh rotation, reuse revocation, logout', () => {
  it('rotates the refresh token on every use; presenting a rotated one revokes the whole family (RFC 9700)', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const login = await signIn('merchant', user);
    const first = await api.post('/auth/refresh', { body: { refresh_token: login.refresh_token } });
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.have.all.keys(TOKEN_KEYS);
    expect(first.body.refresh_token).to.not.equal(login.refresh_token);
    expect(claimsOf(first.body.access_token).payload).to.include({ sub: user.id });

    const reuse = await api.post('/auth/refresh', { body: { refresh_token: login.refresh_token } });
    expectError(reuse, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    // The legitimate holder's newest token went with the family.
    expectError(await api.post('/auth/refresh', { body: { refresh_token: first.body.refresh_token } }), 401);
    const family = await rows('select revoked_at from refresh_tokens where user_id = ?', [user.id]);
    expect(family).to.have.length(2);
    expect(family.every((row) => row.revoked_at !== null)).to.equal(true);
  });

  it('refuses an unknown or expired refresh token with 401', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const login = await signIn('merchant', user);
    expectError(await api.post('/auth/refresh', { body: { refresh_token: 'rt_nope' } }), 401);
    await rows("update refresh_tokens set expires_at = now() - interval '1 second' where user_id = ?", [user.id]);
    expectError(await api.post('/auth/refresh', { body: { refresh_token: login.refresh_token } }), 401);
  });

  it('logout revokes the current refresh token; other sessions of the user stay', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const [one, two] = [await signIn('merchant', user), await signIn('merchant', user)];
    const out = await api.post('/auth/logout', { headers: bearer(one.access_token) });
    expect(out.status, out.text).to.equal(200);
    expect(out.body).to.deep.equal({});
    expectError(await api.post('/auth/refresh', { body: { refresh_token: one.refresh_token } }), 401);
    expect((await api.post('/auth/refresh', { body: { refresh_token: two.refresh_token } })).status).to.equal(200);
  });

  it('organization logout ends an organization session and refuses a merchant token with 401', async () => {
    const tenant = await createTenant();
    const orgUser = await createOrganizationUser([tenant.organization_id]);
    const merchantUser = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const merchantSession = await signIn('merchant', merchantUser);
    expectError(
      await api.post('/auth/organization/logout', { headers: bearer(merchantSession.access_token) }),
      401,
      'authentication_error',
    );
    const session = await signIn('organization', orgUser);
    expect((await api.post('/auth/organization/logout', { headers: bearer(session.access_token) })).status).to.equal(
      200,
    );
    expectError(await api.post('/auth/refresh', { body: { refresh_token: session.refresh_token } }), 401);
  });
});

describe('Dashboard tokens: verification', () => {
  let user: { id: string; email: string; password: string };
  before(async () => {
    const tenant = await createTenant();
    user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
  });
  const memberships = (token: string) => api.get('/auth/merchant/memberships', { headers: bearer(token) });

  it('refuses an expired access token with 401 saying it expired', async () => {
    const res = await memberships(forgeAccessToken({ identity: 'merchant', userId: user.id, expiresIn: -10 }));
    expectError(res, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    expect(res.body.error.message).to.match(/expired/);
  });

  // A forged token is only accepted in a live session: the family of a real sign-in.
  const liveSid = async () =>
    (jwt.decode((await signIn('merchant', user)).access_token as string) as { sid: string }).sid;

  it('pins the algorithm: an unsigned (alg none) or HS512 token is refused', async () => {
    const valid = forgeAccessToken({ identity: 'merchant', userId: user.id, sid: await liveSid() });
    expect((await memberships(valid)).status).to.equal(200);
    const [header, payload] = valid.split('.');
    const none = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(header, 'base64url').toString()), alg: 'none' }),
    );
    expectError(await memberships(`${none.toString('base64url')}.${payload}.`), 401);
    const hs512 = forgeAccessToken({ identity: 'merchant', userId: user.id }, undefined, { algorithm: 'HS512' });
    expectError(await memberships(hs512), 401);
  });

  it('refuses another issuer, another key and a token with its signature changed', async () => {
    expectError(await memberships(forgeAccessToken({ identity: 'merchant', userId: user.id, issuer: 'evil' })), 401);
    const otherKey = forgeAccessToken({ identity: 'merchant', userId: user.id }, Buffer.alloc(32, 7));
    expectError(await memberships(otherKey), 401);
    const valid = forgeAccessToken({ identity: 'merchant', userId: user.id });
    expectError(await memberships(`${valid.slice(0, -2)}${valid.endsWith('AA') ? 'BB' : 'AA'}`), 401);
  });

  it('refuses a token of another Dashboard (audience) with 401 naming the expected one', async () => {
    const res = await memberships(forgeAccessToken({ identity: 'organization', userId: user.id }));
    expectError(res, 401, 'authentication_error');
    expect(res.body.error.message).to.match(/merchant Dashboard token/);
  });
});

describe('Dashboard tokens and API keys never cross', () => {
  it('a Dashboard endpoint refuses an API key with 401 saying it takes a Dashboard token', async () => {
    const tenant = await createTenant();
    const res = await api.get('/auth/merchant/memberships', { key: tenant.merchant_secret_key });
    expectError(res, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    expect(res.body.error.message).to.match(/Dashboard access token/);
    expectError(await api.get('/auth/merchant/memberships'), 401, 'authentication_error');
  });

  it('an API endpoint refuses a Dashboard token with 401 saying it takes an API key', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const session = await signIn('merchant', user);
    const res = await api.get('/customers', { headers: bearer(session.access_token) });
    expectError(res, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    expect(res.body.error.message).to.match(/takes an API key/);
  });
});

describe('Dashboard passwords: change-password', () => {
  it('merchant change-password answers {message, email, can_login} and revokes every refresh token', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const [one, two] = [await signIn('merchant', user), await signIn('merchant', user)];
    const res = await api.post('/auth/merchant/change-password', {
      body: { email: user.email, current_password: PASSWORD, new_password: NEW_PASSWORD },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(['message', 'email', 'can_login']);
    expect(res.body).to.include({ email: user.email, can_login: true });
    for (const session of [one, two]) {
      expectError(await api.post('/auth/refresh', { body: { refresh_token: session.refresh_token } }), 401);
    }
    expectError(await api.post('/auth/merchant/login', { body: { email: user.email, password: PASSWORD } }), 401);
    await signIn('merchant', { email: user.email, password: NEW_PASSWORD });
  });

  for (const [password, problem] of [
    ['Short-1a', /12 to 128/],
    ['alllowercase-123', /uppercase/],
    ['ALLUPPERCASE-123', /lowercase/],
    ['No-Digits-Anywhere', /number/],
    [`Aa1${'x'.repeat(126)}`, /12 to 128/],
  ] as const) {
    it(`refuses a new password that breaks the policy (${problem.source}) with 400`, async () => {
      const tenant = await createTenant();
      const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
      const res = await api.post('/auth/merchant/change-password', {
        body: { email: user.email, current_password: PASSWORD, new_password: password },
      });
      expectError(res, 400, 'validation_error');
      expect(res.body.error.details.new_password.join(' ')).to.match(problem);
    });
  }

  it('refuses a wrong current password with 401 and changes nothing', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const res = await api.post('/auth/merchant/change-password', {
      body: { email: user.email, current_password: 'Wrong-password-1', new_password: NEW_PASSWORD },
    });
    expectError(res, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    await signIn('merchant', user);
  });

  it('a password change goes to the identity of its endpoint only', async () => {
    const tenant = await createTenant();
    const email = uniqueEmail('both');
    await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { email });
    await createOrganizationUser([tenant.organization_id], { email });
    const res = await api.post('/auth/organization/change-password', {
      body: { email, current_password: PASSWORD, new_password: NEW_PASSWORD },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({});
    await signIn('organization', { email, password: NEW_PASSWORD });
    await signIn('merchant', { email, password: PASSWORD });
  });

  it('an admin with a temporary password gets no tokens until /auth/change-password', async () => {
    const admin = await createAdminUser({ mustChangePassword: true });
    const first = await signIn('admin', admin);
    expect(first).to.have.all.keys(['user', 'must_change_password']);
    expect(first.must_change_password).to.equal(true);
    const changed = await api.post('/auth/change-password', {
      body: { email: admin.email, current_password: PASSWORD, new_password: NEW_PASSWORD },
    });
    expect(changed.status, changed.text).to.equal(200);
    const second = await signIn('admin', { email: admin.email, password: NEW_PASSWORD });
    expect(second.must_change_password).to.equal(false);
    expect(second).to.include.all.keys(TOKEN_KEYS);
  });
});

describe('OpenAPI: the Dashboard bearer-JWT scheme', () => {
  it('declares dashboardToken (http bearer, JWT) and uses it on Dashboard endpoints only', async () => {
    const doc = (await api.get('/openapi.json')).body;
    expect(doc.components.securitySchemes.dashboardToken).to.include({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(doc.paths['/api/v1/auth/merchant/memberships'].get.security).to.deep.equal([{ dashboardToken: [] }]);
    expect(doc.paths['/api/v1/auth/merchant/login'].post.security).to.deep.equal([]);
    expect(doc.paths['/api/v1/customers'].get.security).to.equal(undefined);
  });
});
