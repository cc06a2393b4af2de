/**
 * End to end in headless Chromium (Debian's `chromium`, driven by playwright-core): open the hosted checkout page of
 * a monthly offer, type a sandbox test card into the SDK's frame, subscribe, and check that the card was tokenized
 * and saved for the subscription — and that the page's own JavaScript context never held the card number (only
 * the frame did).
 * Skips only when Chromium is missing outside CI; in CI (.ci/run installs it) it must run.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Request } from 'playwright-core';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { newSession } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import { cardConnector, instrumentsPath, NEXT_YEAR } from '../helpers/vault';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => fs.existsSync(candidate));
const PAN = '4242424242424242';
const OUTPUT_DIR = path.join(__dirname, '..', '..', 'test-output');

/** Runs in the top-level page only (browser code, kept as text: the project compiles without the DOM types). */
const RECORD_PAGE_CONTEXT = `
  if (window.top === window) {
    const seen = [];
    window.__seen = seen;
    window.addEventListener('message', (event) => seen.push(JSON.stringify(event.data)), true);
    const originalFetch = window.fetch.bind(window);
    window.fetch = (input, init) => {
      seen.push('fetch ' + String(input) + ' ' + (init && typeof init.body === 'string' ? init.body : ''));
      return originalFetch(input, init);
    };
  }
`;

/** Everything the page's own context holds that could carry a card number. */
const READ_PAGE_CONTEXT = `JSON.stringify({
  seen: window.__seen,
  html: document.documentElement.outerHTML,
  storage: [JSON.stringify(localStorage), JSON.stringify(sessionStorage)],
  globals: Object.keys(window).filter((name) => typeof window[name] === 'string').map((name) => window[name]),
})`;

describe('Hosted checkout page in headless Chromium (e2e)', function () {
  this.timeout(120_000);
  let context: BrowserContext | undefined;
  let userDataDir: string | undefined;

  before(function () {
    if (!CHROMIUM) {
      if (process.env.CI) throw new Error("Chromium is required in CI (.ci/run installs Debian's chromium package)");
      console.log('    (skipped: no /usr/bin/chromium; install it with `apt-get install -y chromium`)');
      this.skip();
    }
  });

  after(async () => {
    await context?.close();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  it('tokenizes a typed sandbox card and saves it for the subscription; the page outside the iframe never holds the card number', async () => {
    const tenant: Tenant = await createTenant();
    const connector = await cardConnector(tenant, 'provider_a');
    const profile = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Cards', is_active: true, payment_method: '*', default_merchant_connector_id: connector.id },
    });
    expect(profile.status, profile.text).to.equal(201);
    const { session: checkout } = await newSession(tenant, { selected_currency: 'USD' });

    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1000, height: 760 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const requests: Request[] = [];
    page.on('request', (request) => requests.push(request));
    await page.addInitScript({ content: RECORD_PAGE_CONTEXT });

    await page.goto(`${stack().url}/checkout/${checkout.id}#key=${tenant.merchant_public_key}`);
    await page.locator('#total[data-amount]').waitFor();
    expect(await page.locator('#total').getAttribute('data-amount')).to.equal('999');
    expect(await page.locator('#merchant').textContent()).to.match(/^Merchant /);

    const frame = page.frameLocator('iframe');
    await frame.locator('#number').pressSequentially(PAN, { delay: 15 });
    // Validation and brand detection happen as the buyer types, inside the frame.
    expect(await frame.locator('#brand').textContent()).to.equal('Visa');
    expect(await frame.locator('#number').inputValue()).to.equal('4242 4242 4242 4242');
    await frame.locator('#expiry').pressSequentially(`12${String(NEXT_YEAR).slice(2)}`, { delay: 15 });
    await frame.locator('#cvc').pressSequentially('123', { delay: 15 });
    await page.locator('#submit:not([disabled])').click();
    await page.locator('#success-view[data-subscription-id]:not([hidden])').waitFor({ timeout: 60_000 });

    const transactionId = await page.locator('#success-view').getAttribute('data-transaction-id');
    const tx = await api.get(`/transactions/${transactionId}`, { key: tenant.merchant_secret_key });
    const instrumentId = tx.body.data.payment_instrument_id;

    fs.mkdirSync(OUTPUT_DIR, { recursive: true });
    const screenshot = path.join(OUTPUT_DIR, 'hosted-checkout.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`    screenshot: ${screenshot}`);

    // The card is saved for the checkout's customer by the subscription's first charge.
    const saved = await api.get(`${instrumentsPath(tenant.merchant_id)}/${instrumentId}`, {
      key: tenant.merchant_secret_key,
    });
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body.data).to.include({
      customer_id: checkout.customer_id,
      card_brand: 'visa',
      last4: '4242',
      status: 'active',
    });
    expect(tx.body.data.subscription_id).to.equal(
      await page.locator('#success-view').getAttribute('data-subscription-id'),
    );

    // The page's own context: every message it received, every fetch it made, its DOM and storage.
    const pageContext = await page.evaluate<string>(READ_PAGE_CONTEXT);
    expect(JSON.parse(pageContext).seen.length).to.be.above(0);
    expect(pageContext).to.not.include(PAN);
    expect(pageContext).to.not.include('4242 4242 4242 4242');
    // Nothing on the wire carried it either: the frame sent ciphertext.
    const tokenRequest = requests.find((request) => request.url().endsWith('/api/v1/tokens'));
    expect(tokenRequest, 'POST /tokens').to.not.equal(undefined);
    expect(tokenRequest!.frame() === page.mainFrame(), 'tokenized from the frame, not the page').to.equal(false);
    for (const request of requests) expect(request.postData() ?? '').to.not.include(PAN);
  });
});
