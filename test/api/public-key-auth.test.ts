/** Public-key authentication (X-Public-Key) of the browser endpoints, CORS on them, and the SDK's static files. */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { instrumentsPath, publicHeaders } from '../helpers/vault';

describe('Public-key authentication (browser endpoints)', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  it("accepts a merchant public key in X-Public-Key and counts it against that key's rate limit", async () => {
    const res = await api.post('/sessions', { headers: publicHeaders(tenant.merchant_public_key), body: {} });
    expect(res.status, res.text).to.equal(201);
    expect(res.headers.get('ratelimit-limit')).to.equal('100');
    const next = await api.post('/sessions', { headers: publicHeaders(tenant.merchant_public_key), body: {} });
    expect(Number(next.headers.get('ratelimit-remaining'))).to.be.below(Number(res.headers.get('ratelimit-remaining')));
  });

  it('refuses a secret key on a browser endpoint with 403, in X-Public-Key or as a bearer token', async () => {
    expectError(
      await api.post('/sessions', { headers: publicHeaders(tenant.merchant_secret_key), body: {} }),
      403,
      'authorization_error',
    );
    expectError(await api.post('/sessions', { key: tenant.merchant_secret_key, body: {} }), 403, 'authorization_error');
    expectError(
      await api.post('/tokens', { key: tenant.organization_secret_key, body: {} }),
      403,
      'authorization_error',
    );
  });

  it('refuses a missing, malformed, unknown or bearer-sent public key and a dashboard token with 401', async () => {
    expectError(await api.post('/sessions', { body: {} }), 401, 'authentication_error');
    expectError(
      await api.post('/sessions', { headers: publicHeaders('pk_live_mer_short'), body: {} }),
      401,
      'authentication_error',
    );
    expectError(
      await api.post('/sessions', { headers: publicHeaders(`pk_live_mer_${'A'.repeat(32)}`), body: {} }),
      401,
      'authentication_error',
    );
    expectError(
      await api.post('/sessions', { key: tenant.merchant_public_key, body: {} }),
      401,
      'authentication_error',
    );
    expectError(
      await api.post('/sessions', { headers: { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x' }, body: {} }),
      401,
      'authentication_error',
    );
  });

  it('refuses a public key everywhere else with 403, even sent as X-Public-Key together with a secret-key route', async () => {
    expectError(
      await api.get(instrumentsPath(tenant.merchant_id), { key: tenant.merchant_public_key }),
      403,
      'authorization_error',
    );
    expectError(await api.get('/tokens/tok_x', { key: tenant.merchant_public_key }), 403, 'authorization_error');
    expectError(
      await api.get('/customers', { headers: publicHeaders(tenant.merchant_public_key) }),
      401,
      'authentication_error',
    );
  });

  it('answers a CORS preflight for the browser endpoints and allows any origin (no cookies are used)', async () => {
    const res = await fetch(`${stack().url}/api/v1/tokens`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-public-key,x-session-id,content-type',
      },
    });
    expect(res.status).to.equal(204);
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    expect(res.headers.get('access-control-allow-headers')).to.include('X-Session-Id');
    const post = await api.post('/sessions', {
      headers: { ...publicHeaders(tenant.merchant_public_key), origin: 'https://shop.example' },
      body: {},
    });
    expect(post.headers.get('access-control-allow-origin')).to.equal('*');
    const secret = await api.get('/customers', {
      key: tenant.merchant_secret_key,
      headers: { origin: 'https://shop.example' },
    });
    expect(secret.headers.get('access-control-allow-origin')).to.equal(null);
  });
});

describe('GET /sdk/v1/* and /checkout/:checkout_session_id (served outside /api/v1)', () => {
  const get = (path: string) => fetch(`${stack().url}${path}`);

  it('serves the SDK as JavaScript with CORS (for crossorigin SRI) and nosniff', async () => {
    const res = await get('/sdk/v1/switchyard.js');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.toString()).to.include('global.Switchyard = Switchyard');
    expect(createHash('sha384').update(body).digest('base64')).to.have.length(64);
  });

  it('serves the card frame embeddable anywhere (CSP frame-ancestors *, no X-Frame-Options) and locked to its own origin', async () => {
    const res = await get('/sdk/v1/card-frame.html');
    expect(res.status).to.equal(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).to.include('frame-ancestors *').and.include("connect-src 'self'").and.include("script-src 'self'");
    expect(res.headers.get('x-frame-options')).to.equal(null);
  });

  it('serves the hosted checkout page unframeable (DENY, frame-ancestors none) and not cached', async () => {
    const res = await get('/checkout/cks_abc123');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(res.headers.get('content-security-policy'))
      .to.include("frame-ancestors 'none'")
      .and.include("frame-src 'self'");
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(await res.text()).to.include('/sdk/v1/switchyard.js');
  });

  it('answers 404 for other paths under /sdk and a malformed checkout id', async () => {
    expect((await get('/sdk/v1/../../package.json')).status).to.equal(404);
    expect((await get('/sdk/v1/missing.js')).status).to.equal(404);
    expect((await get('/checkout/not-an-id')).status).to.equal(404);
  });
});
