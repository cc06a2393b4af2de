/**
 * The hosted checkout in setup mode in headless Chromium: a "Save a card" page with the merchant's name and no
 * amount. A card the issuer declines shows the reason and nothing is saved; the buyer types another card, which is
 * verified and saved as the customer's instrument, the page says "Card saved" and the session completes naming it.
 * Skips only when Chromium is missing outside CI.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { stack } from '../helpers/stack';
import { cascade } from '../helpers/transactions';
import { createCustomer, NEXT_YEAR } from '../helpers/vault';
import { openDashboardBrowser, requireChromium, type DashboardBrowser } from '../helpers/dashboard-browser';

const OUTPUT_DIR = path.join(__dirname, '..', '..', 'test-output');

async function typeCard(page: Page, number: string): Promise<void> {
  const frame = page.frameLocator('iframe');
  await frame.locator('#number').fill('');
  await frame.locator('#number').pressSequentially(number, { delay: 10 });
  await frame.locator('#expiry').fill('');
  await frame.locator('#expiry').pressSequentially(`12${String(NEXT_YEAR).slice(2)}`, { delay: 10 });
  await frame.locator('#cvc').fill('');
  await frame.locator('#cvc').pressSequentially('123', { delay: 10 });
}

describe('Hosted checkout in setup mode saves a card in headless Chromium (e2e)', function () {
  this.timeout(120_000);
  let browser: DashboardBrowser | undefined;

  before(function () {
    requireChromium(this);
  });
  after(async () => browser?.close());

  it('shows "Save a card" without an amount; a declined card shows why, another card is saved and completes the session', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const customerId = await createCustomer(tenant);
    const created = await api.post('/checkout-sessions', {
      key: tenant.merchant_secret_key,
      body: { mode: 'setup', customer_id: customerId, selected_currency: 'USD' },
    });
    expect(created.status, created.text).to.equal(201);
    const checkout = created.body.data;

    browser = await openDashboardBrowser();
    const page = await browser.newPage();
    await page.goto(`${stack().url}/checkout/${checkout.id}#key=${tenant.merchant_public_key}`);
    await page.getByRole('heading', { name: 'Save a card' }).waitFor();
    const [merchant] = await rows('select name from merchants where id = ?', [tenant.merchant_id]);
    await page.locator('#merchant', { hasText: merchant.name }).waitFor();
    expect(await page.locator('#total').isHidden()).to.equal(true);
    expect(await page.locator('#submit').textContent()).to.equal('Save card');

    await typeCard(page, '4000000000000002');
    await page.locator('#submit:not([disabled])').click();
    const refused = page.locator('#result.bad');
    await refused.waitFor({ timeout: 60_000 });
    expect(await refused.textContent()).to.match(/declined/i);
    expect(await rows('select id from payment_instruments where customer_id = ?', [customerId])).to.deep.equal([]);

    await typeCard(page, '4242424242424242');
    await page.locator('#submit:not([disabled])').click();
    await page.locator('#success-view:not([hidden])').waitFor({ timeout: 60_000 });
    expect(await page.locator('#receipt-title').textContent()).to.equal('Card saved');
    const instrumentId = await page.locator('#success-view').getAttribute('data-payment-instrument-id');
    expect(instrumentId).to.match(/^pi_/);
    fs.mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(OUTPUT_DIR, 'hosted-checkout-setup-saved.png'), fullPage: true });

    const session = await api.get(`/checkout-sessions/${checkout.id}`, { key: tenant.merchant_secret_key });
    expect(session.body.data).to.include({ status: 'completed', payment_instrument_id: instrumentId });
  });
});
