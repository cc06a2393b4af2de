/**
 * The guides of docs/guides/ whose steps include a browser (the hosted checkout, the copy-paste SDK page), run as
 * written: their shell steps in one bash process against the test stack, the browser steps in headless Chromium,
 * as a newcomer with nothing but the README and the guides would do them.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { NEXT_YEAR } from '../helpers/vault';
import { openDashboardBrowser, requireChromium, type DashboardBrowser } from '../helpers/dashboard-browser';
import {
  fill,
  guideBlocks,
  guideShell,
  guideTarget,
  guideTenant,
  type GuideShell,
  type GuideTenant,
  servePage,
} from '../helpers/guides';

/** Types a test card into the card frame of the page (any future expiry, any CVC). */
async function typeCard(page: Page, number: string): Promise<void> {
  const frame = page.frameLocator('iframe');
  await frame.locator('#number').pressSequentially(number, { delay: 10 });
  await frame.locator('#expiry').pressSequentially(`12${String(NEXT_YEAR).slice(2)}`, { delay: 10 });
  await frame.locator('#cvc').pressSequentially('123', { delay: 10 });
}

/** Pays the hosted checkout page the browser is on with a test card. */
export async function payWithCard(page: Page, number: string): Promise<void> {
  await typeCard(page, number);
  await page.locator('#submit:not([disabled])').click();
}

/**
 * save-a-card.md's page, served as the guide says to save it, with the key and a fresh enrolment token (the guide's
 * step 2) filled in: a card typed and saved there, what the page then shows.
 */
async function saveCardOnGuidePage(
  page: Page,
  shell: GuideShell,
  tenant: GuideTenant,
  number: string,
): Promise<string> {
  const enrolmentToken = (await shell.run(guideBlocks('save-a-card.md', 'sh')[3])).trim();
  const [html] = guideBlocks('save-a-card.md', 'html');
  const served = await servePage(
    fill(html.replaceAll('http://localhost:3000', guideTarget().api), {
      MERCHANT_PUBLIC_KEY: tenant.merchant_public_key,
      ENROLMENT_TOKEN: enrolmentToken,
    }),
  );
  try {
    await page.goto(served.url);
    await typeCard(page, number);
    await page.getByRole('button', { name: 'Save card' }).click();
    const result = page.getByRole('status');
    await result.filter({ hasText: /\w/ }).waitFor({ timeout: 60_000 });
    return (await result.textContent()) ?? '';
  } finally {
    await served.close();
  }
}

describe('Guides with browser steps, run as written (e2e)', function () {
  this.timeout(300_000);
  let browser: DashboardBrowser | undefined;
  let shell: GuideShell | undefined;

  before(function () {
    requireChromium(this);
  });
  afterEach(() => shell?.close());
  after(async () => browser?.close());

  it('accept-a-payment.md: the hosted checkout takes 4242 and the checkout completes with an authorized transaction', async () => {
    shell = await guideShell(await guideTenant());
    const steps = guideBlocks('accept-a-payment.md', 'sh');
    expect(steps).to.have.length(4);
    expect((await shell.run(steps[0])).trim()).to.equal('true');
    expect(await shell.run(steps[1])).to.match(/^ofr_/);
    const address = (await shell.run(steps[2])).trim();
    expect(address).to.match(/\/checkout\/cks_\w+#key=pk_/);

    browser = await openDashboardBrowser();
    const page = await browser.newPage();
    await page.goto(address);
    await payWithCard(page, '4242424242424242');
    await page.locator('#success-view[data-order-id]:not([hidden])').waitFor({ timeout: 60_000 });

    expect((await shell.run(steps[3])).trim().split('\n')).to.deep.equal(['completed', 'authorized']);
  });

  it('save-a-card.md: the hosted page in setup mode saves 4242 ("Card saved"), the server charges it', async () => {
    shell = await guideShell(await guideTenant());
    const steps = guideBlocks('save-a-card.md', 'sh');
    expect(await shell.run(steps[0])).to.match(/^cust_/);
    const address = (await shell.run(steps[1])).trim();
    expect(address).to.match(/\/checkout\/cks_\w+#key=pk_/);
    browser ??= await openDashboardBrowser();
    const page = await browser.newPage();
    await page.goto(address);
    await page.getByRole('heading', { name: 'Save a card' }).waitFor();
    await payWithCard(page, '4242424242424242');
    await page.locator('#receipt-title', { hasText: 'Card saved' }).waitFor({ timeout: 60_000 });
    expect((await shell.run(steps[2])).trim()).to.equal('authorized');
    await page.close();
  });

  it('save-a-card.md: the copy-paste page saves 4242, the server charges it; 0341 saves too and its charge fails', async () => {
    const tenant = await guideTenant();
    shell = await guideShell(tenant);
    const steps = guideBlocks('save-a-card.md', 'sh');
    expect(steps).to.have.length(6);
    expect(await shell.run(steps[0])).to.match(/^cust_/);
    browser ??= await openDashboardBrowser();

    for (const [number, outcome] of [
      ['4242424242424242', 'authorized'],
      ['4000000000000341', 'failed'],
    ]) {
      const page = await browser.newPage();
      const shown = await saveCardOnGuidePage(page, shell, tenant, number);
      expect(shown, number).to.match(/^Saved: pi_\w+$/);
      const charged = await shell.run(fill(steps[4], { PAYMENT_INSTRUMENT_ID: shown.replace('Saved: ', '') }));
      expect(charged.trim(), number).to.equal(outcome);
      await page.close();
    }
  });

  it('subscriptions-test-clock.md: a clock renews the 4242 subscription; the next renewal, made to fail, goes into dunning and the retry is charged', async () => {
    shell = await guideShell(await guideTenant());
    const steps = guideBlocks('subscriptions-test-clock.md', 'sh');
    expect(steps).to.have.length(6);
    expect(await shell.run(steps[0])).to.match(/^clk_/);
    browser ??= await openDashboardBrowser();
    const page = await browser.newPage();

    await page.goto((await shell.run(steps[1])).trim());
    await payWithCard(page, '4242424242424242');
    await page.locator('#success-view[data-subscription-id]:not([hidden])').waitFor({ timeout: 60_000 });
    expect((await shell.run(steps[2])).trim()).to.equal('active 2027-02-15');

    expect((await shell.run(steps[3])).trim()).to.equal('insufficient_funds');
    expect((await shell.run(steps[4])).trim()).to.equal('dunning 2027-02-15');
    expect((await shell.run(steps[5])).trim()).to.equal('active 2027-03-15');
  });
});
