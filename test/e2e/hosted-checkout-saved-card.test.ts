/**
 * The hosted checkout in headless Chromium offers a returning customer's saved cards as choices and pays with the
 * picked one without any card typed: the payment is charged on that instrument (no card token). "Use a new card"
 * brings the card fields back. Skips only when Chromium is missing outside CI.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { chromium, type BrowserContext } from 'playwright-core';
import { api } from '../helpers/http';
import { createTenant, customerInput } from '../helpers/factories';
import { createSession } from '../helpers/checkout';
import { createOffer } from '../helpers/catalog';
import { rows } from '../helpers/db';
import { stack } from '../helpers/stack';
import { cascade } from '../helpers/transactions';
import { CARDS, saveCard } from '../helpers/vault';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => fs.existsSync(candidate));
const OUTPUT_DIR = path.join(__dirname, '..', '..', 'test-output');

describe('Hosted checkout pays with a saved card in headless Chromium (e2e)', function () {
  this.timeout(120_000);
  let context: BrowserContext | undefined;
  let userDataDir: string | undefined;

  before(function () {
    if (!CHROMIUM) {
      if (process.env.CI) throw new Error("Chromium is required in CI (.ci/run installs Debian's chromium package)");
      this.skip();
    }
  });
  after(async () => {
    await context?.close();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  it("lists the customer's saved card as the picked choice and pays with it, no card typed", async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const customer = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      headers: { 'idempotency-key': randomUUID() },
      body: customerInput(),
    });
    expect(customer.status, customer.text).to.equal(201);
    const saved = await saveCard(tenant, customer.body.data.id, CARDS.visa);
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, {
      offer_id: offer.id,
      customer_id: customer.body.data.id,
      selected_currency: 'USD',
    });

    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1000, height: 760 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${stack().url}/checkout/${checkout.id}#key=${tenant.merchant_public_key}`);
    await page.locator('#total[data-amount]').waitFor();
    const savedChoice = page.getByLabel('VISA •••• 4242', { exact: false });
    await savedChoice.waitFor();
    expect(await savedChoice.isChecked()).to.equal(true);
    expect(await page.locator('#card').isHidden()).to.equal(true);

    // "Use a new card" brings the card fields back and asks for them; picking the saved card again pays.
    await page.getByLabel('Use a new card').check();
    expect(await page.locator('#card').isVisible()).to.equal(true);
    expect(await page.locator('#submit').isDisabled()).to.equal(true);
    await savedChoice.check();
    fs.mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(OUTPUT_DIR, 'hosted-checkout-saved-card.png'), fullPage: true });
    await page.locator('#submit:not([disabled])').click();
    await page.locator('#success-view:not([hidden])').waitFor({ timeout: 60_000 });

    const transactionId = await page.locator('#success-view').getAttribute('data-transaction-id');
    const [tx] = await rows('select payment_instrument_id, card_token_id, status from transactions where id = ?', [
      transactionId,
    ]);
    expect(tx).to.deep.equal({ payment_instrument_id: saved.id, card_token_id: null, status: 'authorized' });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.screenshot({ path: path.join(OUTPUT_DIR, 'hosted-checkout-saved-card-paid-360.png'), fullPage: true });
  });
});
