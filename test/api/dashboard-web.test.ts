/**
 * The merchant Dashboard web app served by the API process at /dashboard/: index.html (strict CSP, no-store) for
 * every app path so deep links and reloads work, its hashed assets with their content types, nothing else.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../domain/platform/config';
import { stack } from '../helpers/stack';

const get = (path: string) => fetch(`${stack().url}${path}`, { redirect: 'manual' });

describe('Dashboard web app at /dashboard/', () => {
  it('serves index.html with a strict CSP at /dashboard/ and at any app path below it (SPA fallback)', async () => {
    for (const path of ['/dashboard/', '/dashboard/subscriptions/sub_123', '/dashboard/sign-in?next=%2Fpayments']) {
      const res = await get(path);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).to.include("default-src 'none'");
      expect(csp).to.include("script-src 'self'");
      expect(csp).to.include("frame-ancestors 'none'");
      expect(csp).to.not.include('unsafe-inline');
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      const html = await res.text();
      expect(html).to.match(/<script type="module" src="\/dashboard\/assets\/main-[A-Z0-9]+\.js"><\/script>/);
      expect(html).to.not.match(/<script>|style=/);
    }
    const bare = await get('/dashboard');
    expect(bare.status).to.equal(302);
    expect(bare.headers.get('location')).to.equal('/dashboard/');
  });

  it('serves the built script and stylesheet with their content types, immutable; an unknown asset is a 404', async () => {
    const html = await (await get('/dashboard/')).text();
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)![1];
    const style = /href="(\/dashboard\/assets\/[^"]+\.css)"/.exec(html)![1];
    const js = await get(script);
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).to.include('immutable');
    expect(js.headers.get('x-content-type-options')).to.equal('nosniff');
    const css = await get(style);
    expect(css.headers.get('content-type')).to.equal('text/css; charset=utf-8');
    expect((await get('/dashboard/assets/main-NOPE.js')).status).to.equal(404);
    expect((await get('/dashboard/assets/../../package.json')).status).to.not.equal(200);
  });

  it('leaves the API alone: /api/v1 paths are never answered with the app', async () => {
    const res = await get('/api/v1/merchant/subscriptions');
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
  });
});

describe('DASHBOARD_URL: e-mail links open the web app', () => {
  const env = {
    APP_ENV: 'test',
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  };

  it('defaults to PUBLIC_BASE_URL + /dashboard (where /reset-password and /accept-invitation are pages)', () => {
    expect(loadConfig(env).dashboard.appUrl).to.equal('http://localhost:3000/dashboard');
    const behindProxy = loadConfig({ ...env, PUBLIC_BASE_URL: 'https://pay.example.com/' });
    expect(behindProxy.dashboard.appUrl).to.equal('https://pay.example.com/dashboard');
    expect(loadConfig({ ...env, DASHBOARD_URL: 'https://app.example.com' }).dashboard.appUrl).to.equal(
      'https://app.example.com',
    );
  });
});
