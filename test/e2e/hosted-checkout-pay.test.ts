/**
 * End to end in headless Chromium: a buyer pays a one-time checkout on the hosted page — with a good card, after a
 * soft decline, with a double click, with pix (QR image) settled through the sandbox control API, with a boleto —
 * and subscribes to a recurring offer, paid or in a free trial. Screenshots of every view go to
 * test-output/checkout-*.png. Skips only when Chromium is missing outside CI.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { createSession, storedStatus } from '../helpers/checkout';
import { createOffer, type OfferFixture } from '../helpers/catalog';
import { rows } from '../helpers/connectors';
import { control, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { cascade, providerReferenceOf } from '../helpers/transactions';
import { CARDS, NEXT_YEAR } from '../helpers/vault';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => fs.existsSync(candidate));
const OUTPUT_DIR = path.join(__dirname, '..', '..', 'test-output');

async function oneTimeCheckout(tenant: Tenant, currency = 'BRL'): Promise<string> {
  return checkoutFor(tenant, { billingCycle: 'none' }, currency);
}

async function checkoutFor(tenant: Tenant, fixture: OfferFixture, currency = 'BRL'): Promise<string> {
  const { offer } = await createOffer(tenant.merchant_id, fixture);
  return (await createSession(tenant, { offer_id: offer.id, selected_currency: currency })).id;
}

/** The merchant's subscriptions as GET /merchants/:id/subscriptions lists them. */
async function listedSubscriptions(tenant: Tenant): Promise<any[]> {
  const res = await api.get(`/merchants/${tenant.merchant_id}/subscriptions`, { key: tenant.merchant_secret_key });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

const buttonText = async (page: Page) => (await page.locator('#submit').textContent())?.replace(/\s/g, ' ');

const checkoutTransactions = (checkoutId: string) =>
  rows('select id, status, order_id from transactions where checkout_session_id = ? order by created_at', [checkoutId]);

/** Approved charges the sandbox recorded for these transactions (its ledger is keyed by our transaction id). */
async function approvedCharges(transactionIds: string[]): Promise<number> {
  let count = 0;
  for (const reference of transactionIds) {
    const entries = await ledger({ reference, operation: 'authorize' });
    count += entries.filter((entry) => entry.outcome === 'approved' && !entry.replayed).length;
  }
  return count;
}

describe('Hosted checkout pays a one-time offer in headless Chromium (e2e)', function () {
  this.timeout(180_000);
  let context: BrowserContext | undefined;
  let userDataDir: string | undefined;

  before(async function () {
    if (!CHROMIUM) {
      if (process.env.CI) throw new Error("Chromium is required in CI (.ci/run installs Debian's chromium package)");
      console.log('    (skipped: no /usr/bin/chromium; install it with `apt-get install -y chromium`)');
      this.skip();
    }
    fs.mkdirSync(OUTPUT_DIR, { recursive: true });
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      locale: 'en-US',
      viewport: { width: 1000, height: 760 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
    });
  });

  after(async () => {
    await context?.close();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  async function open(tenant: Tenant, checkoutId: string): Promise<Page> {
    const page = await context!.newPage();
    await page.goto(`${stack().url}/checkout/${checkoutId}#key=${tenant.merchant_public_key}`);
    await page.locator('#total[data-amount]').waitFor();
    return page;
  }

  async function typeCard(page: Page, number: string, cvc = '123') {
    const frame = page.frameLocator('iframe');
    await frame.locator('#number').fill('');
    await frame.locator('#number').pressSequentially(number, { delay: 10 });
    await frame.locator('#expiry').fill('');
    await frame.locator('#expiry').pressSequentially(`12${String(NEXT_YEAR).slice(2)}`, { delay: 10 });
    await frame.locator('#cvc').fill('');
    await frame.locator('#cvc').pressSequentially(cvc, { delay: 10 });
  }

  async function screenshot(page: Page, name: string) {
    const file = path.join(OUTPUT_DIR, `checkout-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    console.log(`    screenshot: ${file}`);
  }

  it('pays with 4242…: the button names the amount, success view with the order, transaction authorized, checkout completed, event recorded', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const checkoutId = await oneTimeCheckout(tenant);
    const page = await open(tenant, checkoutId);
    expect(await page.locator('#total').getAttribute('data-amount')).to.equal('4990');
    expect(await page.locator('#items li .label').first().textContent()).to.match(/^Plan \d+ — Offer \d+/);
    await typeCard(page, CARDS.visa.number);
    await page.locator('#submit:not([disabled])').waitFor();
    expect((await page.locator('#submit').textContent())?.replace(/\s/g, ' ')).to.match(/^Pay R\$ ?49\.90$/);
    await screenshot(page, 'form');
    await page.locator('#submit').click();
    await page.locator('#success-view[data-order-id]:not([hidden])').waitFor({ timeout: 60_000 });
    await screenshot(page, 'success');

    const orderId = await page.locator('#success-view').getAttribute('data-order-id');
    const transactionId = await page.locator('#success-view').getAttribute('data-transaction-id');
    expect(await page.locator('#receipt-order').textContent()).to.equal(orderId);
    expect(await page.locator('#receipt-items li').count()).to.equal(1);
    const tx = await api.get(`/transactions/${transactionId}`, { key: tenant.merchant_secret_key });
    expect(tx.body.data).to.include({
      status: 'authorized',
      amount_authorized: 4990,
      currency: 'BRL',
      order_id: orderId,
    });
    const order = await api.get(`/orders/${orderId}`, { key: tenant.merchant_secret_key });
    expect(order.body.data).to.include({ order_type: 'checkout', checkout_session_id: checkoutId, total_amount: 4990 });
    expect(await storedStatus(checkoutId)).to.equal('completed');
    const events = await api.get('/events', {
      key: tenant.merchant_secret_key,
      query: { type: 'transaction.authorized' },
    });
    expect(events.status, events.text).to.equal(200);
    expect(JSON.stringify(events.body.data)).to.include(transactionId!);
    await page.close();
  });

  it('a soft decline says so in plain words and clears the card; a good card then pays: one successful charge', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const checkoutId = await oneTimeCheckout(tenant);
    const page = await open(tenant, checkoutId);
    await typeCard(page, CARDS.doNotHonor.number);
    await page.locator('#submit:not([disabled])').click();
    await page.locator('#result.bad:not([hidden])').waitFor({ timeout: 60_000 });
    const message = await page.locator('#result').textContent();
    expect(message).to.match(/declined/i);
    expect(message).to.not.match(/do_not_hono|refused|\b05\b/i);
    expect(await page.frameLocator('iframe').locator('#number').inputValue()).to.equal('');
    await screenshot(page, 'declined');

    await typeCard(page, CARDS.visa.number);
    await page.locator('#submit:not([disabled])').click();
    await page.locator('#success-view[data-order-id]:not([hidden])').waitFor({ timeout: 60_000 });
    const transactions = await checkoutTransactions(checkoutId);
    expect(transactions.map((t: any) => t.status)).to.deep.equal(['failed', 'authorized']);
    expect(await approvedCharges(transactions.map((t: any) => t.id))).to.equal(1);
    await page.close();
  });

  it('a double click pays once', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const checkoutId = await oneTimeCheckout(tenant);
    const page = await open(tenant, checkoutId);
    await typeCard(page, CARDS.visa.number);
    await page.locator('#submit:not([disabled])').dblclick();
    await page.locator('#success-view[data-order-id]:not([hidden])').waitFor({ timeout: 60_000 });
    const transactions = await checkoutTransactions(checkoutId);
    expect(transactions).to.have.length(1);
    expect(await approvedCharges(transactions.map((t: any) => t.id))).to.equal(1);
    await page.close();
  });

  it('pix: shows the code with its expiry, then the page shows paid once the sandbox settles it', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_b']);
    const checkoutId = await oneTimeCheckout(tenant);
    const page = await open(tenant, checkoutId);
    if (await page.locator('#methods').isVisible()) await page.locator('.method[data-method="pix"]').click();
    expect((await page.locator('#submit').textContent())?.replace(/\s/g, ' ')).to.match(/^Pay R\$ ?49\.90 with Pix$/);
    await page.locator('#submit:not([disabled])').click();
    await page.locator('#pending-view[data-transaction-id]:not([hidden])').waitFor({ timeout: 60_000 });
    expect(await page.locator('#pix-code').inputValue()).to.match(/^000201/);
    expect(await page.locator('#pending-expiry').textContent()).to.match(/^Pay before /);
    // The QR code is an image the browser decoded and laid out (an SVG the API drew from this very code).
    const qr = page.locator('#pix-qr');
    expect(await qr.isVisible()).to.equal(true);
    expect(await qr.getAttribute('src')).to.match(/^data:image\/svg\+xml;base64,/);
    expect(await qr.evaluate((image: any) => (image.complete ? (image.naturalWidth as number) : 0))).to.be.greaterThan(
      0,
    );
    const box = (await qr.boundingBox())!;
    expect([box.width, box.height]).to.deep.equal([220, 220]);
    await screenshot(page, 'pix-pending');

    const transactionId = (await page.locator('#pending-view').getAttribute('data-transaction-id'))!;
    const settled = await control('POST', `/payments/${await providerReferenceOf(tenant, transactionId)}/settle`);
    expect(settled.status, JSON.stringify(settled.body)).to.be.lessThan(300);
    await page.locator('#success-view[data-order-id]:not([hidden])').waitFor({ timeout: 60_000 });
    await screenshot(page, 'pix-paid');
    expect(await storedStatus(checkoutId)).to.equal('completed');
    await page.close();
  });

  it('a recurring offer paid on the page creates an active subscription (listed by GET /subscriptions) and shows its next billing date', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const checkoutId = await checkoutFor(tenant, { billingCycle: 'monthly' });
    const page = await open(tenant, checkoutId);
    expect(await page.locator('#methods').isVisible()).to.equal(false);
    expect(await page.locator('#later').textContent()).to.match(/^R\$ ?49\.90 today, then R\$ ?49\.90 per month from /);
    await typeCard(page, CARDS.visa.number);
    await page.locator('#submit:not([disabled])').waitFor();
    expect(await buttonText(page)).to.match(/^Pay R\$ ?49\.90 and subscribe$/);
    await screenshot(page, 'subscription-form');
    await page.locator('#submit').click();
    await page.locator('#success-view[data-subscription-id]:not([hidden])').waitFor({ timeout: 60_000 });
    await screenshot(page, 'subscription-success');

    const subscriptionId = await page.locator('#success-view').getAttribute('data-subscription-id');
    const listed = (await listedSubscriptions(tenant)).filter((sub) => sub.id === subscriptionId);
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ status: 'active', current_amount: 4990, cycles_completed: 1 });
    expect(listed[0].next_billing_at).to.equal(
      await page.locator('#success-view').getAttribute('data-next-billing-at'),
    );
    expect(await page.locator('#receipt-title').textContent()).to.equal('Subscription started');
    expect(await page.locator('#receipt-next').textContent()).to.match(
      /^Next billing date: .+ \(R\$ ?49\.90 per month\)\.$/,
    );
    expect(await storedStatus(checkoutId)).to.equal('completed');
    await page.close();
  });

  it('a free-trial offer: "Start free trial", R$0 charged (zero-amount card validation), the subscription trialing', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const checkoutId = await checkoutFor(tenant, { billingCycle: 'monthly', freeTrial: true, trialDays: 14 });
    const page = await open(tenant, checkoutId);
    expect(await page.locator('#total').getAttribute('data-amount')).to.equal('0');
    expect(await page.locator('#later').textContent()).to.match(/^R\$ ?0\.00 today, then R\$ ?49\.90 per month from /);
    await typeCard(page, CARDS.visa.number);
    await page.locator('#submit:not([disabled])').waitFor();
    expect(await buttonText(page)).to.equal('Start free trial');
    await screenshot(page, 'trial-form');
    await page.locator('#submit').click();
    await page.locator('#success-view[data-subscription-id]:not([hidden])').waitFor({ timeout: 60_000 });
    await screenshot(page, 'trial-success');
    expect(await page.locator('#receipt-title').textContent()).to.equal('Your free trial has started');
    expect(await page.locator('#receipt-amount').textContent()).to.match(/^R\$ ?0\.00 charged today$/);

    const subscriptionId = await page.locator('#success-view').getAttribute('data-subscription-id');
    const [sub] = (await listedSubscriptions(tenant)).filter((s) => s.id === subscriptionId);
    expect(sub).to.include({ status: 'trialing', cycles_completed: 0 });
    expect(sub.next_billing_at).to.equal(sub.trial_end);
    const transactionId = (await page.locator('#success-view').getAttribute('data-transaction-id'))!;
    const tx = (await api.get(`/transactions/${transactionId}`, { key: tenant.merchant_secret_key })).body.data;
    expect(tx).to.include({ charge_type: 'setup_verification', amount_authorized: 0, subscription_id: subscriptionId });
    // Nothing was charged at the provider: every call it recorded for this payment was for R$0.
    const entries = await ledger({ reference: transactionId });
    expect(entries.length).to.be.greaterThan(0);
    expect(entries.every((entry) => !entry.amount)).to.equal(true);
    await page.close();
  });

  it('boleto: the tab gives the digitable line and its due date', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_b']);
    const checkoutId = await oneTimeCheckout(tenant);
    const page = await open(tenant, checkoutId);
    await page.locator('.method[data-method="boleto"]').click();
    expect(await buttonText(page)).to.match(/^Pay R\$ ?49\.90 with boleto$/);
    await page.locator('#submit:not([disabled])').click();
    await page.locator('#pending-view[data-method="boleto"]:not([hidden])').waitFor({ timeout: 60_000 });
    expect(await page.locator('#pending-title').textContent()).to.equal('Pay the boleto to finish');
    expect(await page.locator('#pix-code').inputValue()).to.match(/^\d{5}\.\d{5} \d{5}\.\d{6} /);
    expect(await page.locator('#pending-expiry').textContent()).to.match(/^Due /);
    expect(await page.locator('#pix-qr').isVisible()).to.equal(false);
    await screenshot(page, 'boleto-pending');
    await page.close();
  });

  it('an expired or completed checkout shows a clear message instead of the form', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const checkoutId = await oneTimeCheckout(tenant);
    await rows("update checkout_sessions set status = 'expired' where id = ?", [checkoutId]);
    const page = await open(tenant, checkoutId);
    await page.locator('#closed-view:not([hidden])').waitFor();
    expect(await page.locator('#closed-title').textContent()).to.equal('This checkout has expired');
    expect(await page.locator('#pay-view').isVisible()).to.equal(false);
    await screenshot(page, 'expired');
    await page.close();
  });
});
