/**
 * The browser SDK runs a 3-D Secure challenge on the integrator's own page, in headless Chromium: the page of
 * docs/guides/save-a-card.md's 3-D Secure section (its ```js block, run as written) confirms the checkout, the SDK
 * sends the buyer to the bank's challenge page, and back on the page `card.returnedPayment()` reads how it ended.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { api } from '../helpers/http';
import { createTenant, giveWebsite, type Tenant } from '../helpers/factories';
import { createSession } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { openDashboardBrowser, requireChromium, type DashboardBrowser } from '../helpers/dashboard-browser';
import { fill, guideBlocks, servePage } from '../helpers/guides';
import { stack } from '../helpers/stack';
import { cascade } from '../helpers/transactions';
import { NEXT_YEAR } from '../helpers/vault';

const CHALLENGE = '4000000000003220';

describe("The browser SDK runs the 3-D Secure challenge on the integrator's page (e2e)", function () {
  this.timeout(180_000);
  let browser: DashboardBrowser;
  let tenant: Tenant;

  before(async function () {
    requireChromium(this);
    tenant = await createTenant();
    await giveWebsite(tenant);
    await cascade(tenant, ['provider_a'], { webhooks: false });
    browser = await openDashboardBrowser();
  });
  after(async () => browser?.close());

  /** The guide's script on a page of the integrator's own origin, for a new checkout. */
  async function integratorPage() {
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, { offer_id: offer.id, selected_currency: 'USD' });
    const [script] = guideBlocks('save-a-card.md', 'js');
    const html =
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>` +
      `<script src="${stack().url}/sdk/v1/switchyard.js"></script></head><body>` +
      `<div id="card"></div><button id="pay" type="button">Pay</button><p id="status" role="status"></p>` +
      `<script>${fill(script, { MERCHANT_PUBLIC_KEY: tenant.merchant_public_key, CHECKOUT_SESSION_ID: checkout.id })}</script>` +
      `</body></html>`;
    return servePage(html);
  }

  async function payIntoChallenge(page: Page, url: string) {
    await page.goto(url);
    const frame = page.frameLocator('iframe');
    await frame.locator('#number').pressSequentially(CHALLENGE, { delay: 10 });
    await frame.locator('#expiry').pressSequentially(`12${String(NEXT_YEAR).slice(2)}`, { delay: 10 });
    await frame.locator('#cvc').pressSequentially('123', { delay: 10 });
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('heading', { name: 'Sandbox bank: confirm this payment' }).waitFor({ timeout: 60_000 });
  }

  for (const [button, shown, status] of [
    ['Complete', 'succeeded', 'authorized'],
    ['Fail', 'failed: authentication_failed', 'failed'],
  ] as const) {
    it(`confirmCheckout redirects to the challenge; ${button} brings the buyer back to the page, and returnedPayment reads "${shown}"`, async () => {
      const served = await integratorPage();
      try {
        const page = await browser.newPage();
        await payIntoChallenge(page, served.url);
        await page.getByRole('button', { name: button }).click();
        await page.waitForURL((url) => url.origin === new URL(served.url).origin);
        const transactionId = new URL(page.url()).searchParams.get('transaction_id');
        expect(transactionId).to.match(/^tx_/);
        await page.getByRole('status').filter({ hasText: shown }).waitFor({ timeout: 60_000 });
        const tx = await api.get(`/transactions/${transactionId}`, { key: tenant.merchant_secret_key });
        expect(tx.body.data.status).to.equal(status);
        await page.close();
      } finally {
        await served.close();
      }
    });
  }
});
