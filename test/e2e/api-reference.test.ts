/**
 * The rendered API reference at /docs in headless Chromium: Redoc, served from this origin under the page's strict
 * CSP (no CDN, no request leaves the API's origin), renders the integration document — its operations with their
 * request and response examples, and no Dashboard endpoint. The document itself is at a stable URL.
 */
import { expect } from 'chai';
import path from 'node:path';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { openDashboardBrowser, OUTPUT_DIR, requireChromium, type DashboardBrowser } from '../helpers/dashboard-browser';

describe('The API reference at /docs (e2e)', function () {
  this.timeout(120_000);
  let browser: DashboardBrowser | undefined;

  before(function () {
    requireChromium(this);
  });
  after(async () => browser?.close());

  it('publishes the integration document at /api/v1/openapi/integration.json, without Dashboard paths', async () => {
    const res = await api.get('/openapi/integration.json');
    expect(res.status, res.text).to.equal(200);
    const paths = Object.keys(res.body.paths);
    expect(paths).to.include.members(['/api/v1/transactions', '/api/v1/checkout-sessions', '/api/v1/test-clocks']);
    expect(paths.filter((p) => /^\/api\/v1\/(merchant|org|auth|admin)\//.test(p))).to.deep.equal([]);
  });

  it('renders the reference from this origin only, under a CSP with no inline script, with examples', async () => {
    browser = await openDashboardBrowser();
    const page = await browser.newPage();
    const origins = new Set<string>();
    page.on('request', (request) => origins.add(new URL(request.url()).origin));
    const response = await page.goto(`${stack().url}/docs`);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp)
      .to.include("script-src 'self'")
      .and.not.match(/script-src[^;]*unsafe-inline/);
    await page.getByRole('heading', { name: 'Switchyard integration API' }).waitFor({ timeout: 60_000 });
    const charge = page.locator('h2', { hasText: 'Charge: routes across connectors' }).first();
    await charge.scrollIntoViewIfNeeded();
    await charge.waitFor();
    expect(await page.getByText('Request samples').count()).to.be.greaterThan(0);
    expect(await page.getByText('Response samples').count()).to.be.greaterThan(0);
    expect(await page.getByText('/api/v1/merchant/overview').count()).to.equal(0);
    await page.screenshot({ path: path.join(OUTPUT_DIR, 'api-reference.png') });
    expect([...origins].filter((origin) => origin !== stack().url && origin !== 'null')).to.deep.equal([]);
    expect(browser.problems, 'console errors (CSP violations among them)').to.deep.equal([]);
  });
});
