/**
 * The hosted checkout's success_url and cancel_url in headless Chromium: the page's "back" link leads to cancel_url,
 * and once the checkout is paid (payment mode) or its card saved (setup mode) the page sends the buyer to success_url
 * with {CHECKOUT_SESSION_ID} replaced. Skips only when Chromium is missing outside CI.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { sellableOffer } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import { cascade } from '../helpers/transactions';
import { CARDS, createCustomer, NEXT_YEAR } from '../helpers/vault';
import { openDashboardBrowser, requireChromium, type DashboardBrowser } from '../helpers/dashboard-browser';

async function typeCard(page: Page, number: string): Promise<void> {
  const frame = page.frameLocator('iframe');
  await frame.locator('#number').pressSequentially(number, { delay: 10 });
  await frame.locator('#expiry').pressSequentially(`12${String(NEXT_YEAR).slice(2)}`, { delay: 10 });
  await frame.locator('#cvc').pressSequentially('123', { delay: 10 });
}

describe('Hosted checkout follows success_url and cancel_url in headless Chromium (e2e)', function () {
  this.timeout(120_000);
  let browser: DashboardBrowser | undefined;
  let tenant: Tenant;

  before(async function () {
    requireChromium(this);
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    browser = await openDashboardBrowser();
  });
  after(async () => browser?.close());

  // A loopback shop: http is allowed there outside production, and the stack serves nothing at /shop (a 404 page).
  const shop = (page: string) => `${stack().url}/shop/${page}`;

  async function checkout(body: Record<string, unknown>): Promise<string> {
    const created = await api.post('/checkout-sessions', {
      key: tenant.merchant_secret_key,
      body: {
        customer_id: await createCustomer(tenant),
        success_url: shop('thanks?session={CHECKOUT_SESSION_ID}'),
        cancel_url: shop('cart'),
        ...body,
      },
    });
    expect(created.status, created.text).to.equal(201);
    return created.body.data.id;
  }

  async function open(checkoutId: string): Promise<Page> {
    const page = await browser!.newPage();
    await page.goto(`${stack().url}/checkout/${checkoutId}#key=${tenant.merchant_public_key}`);
    return page;
  }

  it('payment mode: the back link goes to cancel_url; a paid checkout lands on success_url naming the session', async () => {
    const { offer } = await sellableOffer(tenant);
    const checkoutId = await checkout({ offer_id: offer.id });
    const page = await open(checkoutId);
    await page.locator('#back:not([hidden])').waitFor();
    expect(await page.locator('#back').getAttribute('href')).to.equal(shop('cart'));

    await typeCard(page, CARDS.visa.number);
    await page.locator('#submit:not([disabled])').click();
    await page.waitForURL(shop(`thanks?session=${checkoutId}`), { timeout: 60_000 });
    const session = await api.get(`/checkout-sessions/${checkoutId}`, { key: tenant.merchant_secret_key });
    expect(session.body.data.status).to.equal('completed');
  });

  it('payment mode: following the back link takes the buyer to cancel_url and leaves the checkout open', async () => {
    const { offer } = await sellableOffer(tenant);
    const checkoutId = await checkout({ offer_id: offer.id });
    const page = await open(checkoutId);
    await page.locator('#back:not([hidden])').click();
    await page.waitForURL(shop('cart'));
    const session = await api.get(`/checkout-sessions/${checkoutId}`, { key: tenant.merchant_secret_key });
    expect(session.body.data.status).to.equal('customer_identified');
  });

  it('setup mode: a saved card lands on success_url naming the session', async () => {
    const checkoutId = await checkout({ mode: 'setup', selected_currency: 'USD' });
    const page = await open(checkoutId);
    await page.getByRole('heading', { name: 'Save a card' }).waitFor();
    await typeCard(page, CARDS.visa.number);
    await page.locator('#submit:not([disabled])').click();
    await page.waitForURL(shop(`thanks?session=${checkoutId}`), { timeout: 60_000 });
    const session = await api.get(`/checkout-sessions/${checkoutId}`, { key: tenant.merchant_secret_key });
    expect(session.body.data).to.include({ status: 'completed' });
    expect(session.body.data.payment_instrument_id).to.match(/^pi_/);
  });
});
