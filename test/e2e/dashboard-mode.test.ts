/**
 * The Dashboard's data mode (headless Chromium): one live/test choice for the tab, switched in the navigation,
 * with a banner on every page while test data is shown, kept across pages and reloads (sessionStorage) and in list
 * pages' URLs (a shared link opens on the same data). A merchant with a live connector opens on live data; one
 * without any opens on test data, since no live data can exist there.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { postConnector } from '../helpers/connectors';
import { createTenant, type Tenant } from '../helpers/factories';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

/** A merchant with one approved test-mode payment of `amount` (the only kind that approves on this machine). */
async function withTestPayment(amount: number): Promise<Tenant> {
  const tenant = await createTenant();
  await cascade(tenant, ['provider_a']);
  const paid = await charge(tenant, cardCharge(await cardToken(tenant), { amount }));
  expect(paid.body.data.status, paid.text).to.equal('authorized');
  return tenant;
}

/** Browser code kept as text (the project compiles without the DOM types). */
const CLICK_TEAM_ON_FIRST_PAINT = `{
  let sawLoading = false;
  const observer = new MutationObserver(() => {
    const shell = document.querySelector('main > .loading[role="status"]');
    if (shell && shell.textContent === 'Loading…') sawLoading = true;
    else if (sawLoading) {
      observer.disconnect();
      document.querySelector('nav a[href$="/team"]').click();
    }
  });
  observer.observe(document.body, { childList: true, subtree: true });
}`;

describe('Merchant Dashboard data mode (live or test) in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  const ui = useDashboardBrowser('none');
  let withLive: Tenant;
  let testOnly: Tenant;

  before(async () => {
    withLive = await withTestPayment(4200);
    await postConnector(withLive, 'provider_a', { name: 'Live card', is_test_mode: false });
    testOnly = await withTestPayment(1700);
  });

  /** A new tab (its own sessionStorage) signed in as an owner of `tenant`, opened at `path`. */
  async function signedIn(tenant: Tenant, path: string): Promise<Page> {
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'owner' });
    const page = await ui.browser.newPage();
    await page.goto(`${ui.browser.base}${path}`);
    await signInThroughPage(page, owner.email, owner.password);
    return page;
  }
  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
  const testFlag = (page: Page) => new URL(page.url()).searchParams.get('test');
  const banner = (page: Page) => page.getByText('Viewing test data');
  const paymentsHeading = (page: Page) => page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();

  it('a merchant with a live connector opens on live data; the Test data switch shows test data under a banner on every page, for the rest of the tab', async () => {
    const page = await signedIn(withLive, '/');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const toggle = page.getByLabel('Test data');
    expect(await toggle.isChecked()).to.equal(false);
    await nav(page, 'Payments');
    await page.getByText('No payments yet.', { exact: false }).waitFor();
    expect(await banner(page).count()).to.equal(0);

    await toggle.check();
    await banner(page).waitFor();
    await page.getByRole('link', { name: '$42.00' }).waitFor();
    expect(testFlag(page)).to.equal('1');
    await ui.check('mode-test-payments', page);

    await nav(page, 'Subscriptions');
    await page.getByRole('heading', { name: 'Subscriptions', level: 1 }).waitFor();
    await banner(page).waitFor();
    await page.waitForURL((url) => url.searchParams.get('test') === '1');
    await nav(page, 'Orders');
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    await banner(page).waitFor();
    expect(await page.getByLabel('Test data').isChecked()).to.equal(true);
    await nav(page, 'Payments');
    await page.getByRole('link', { name: '$42.00' }).waitFor();

    await page.getByLabel('Test data').uncheck();
    await page.getByText('No payments yet.', { exact: false }).waitFor();
    expect(await banner(page).count()).to.equal(0);
    expect(testFlag(page)).to.equal(null);
  });

  it('a shared list link with the test flag opens on test data, through sign-in, in a tab that had no mode', async () => {
    const page = await signedIn(withLive, '/payments?test=1');
    await paymentsHeading(page);
    await banner(page).waitFor();
    await page.getByRole('link', { name: '$42.00' }).waitFor();
    expect(testFlag(page)).to.equal('1');
  });

  it('a page left before its mode is written into the URL stays left: a link clicked on the first paint after the mode is known wins', async () => {
    const owner = await createMerchantUser(testOnly.organization_id, [testOnly.merchant_id], { role: 'owner' });
    const page = await ui.browser.newPage();
    await page.goto(`${ui.browser.base}/sign-in`);
    // Clicks Team in the same task as the commit that replaces "Loading…" with the Overview: before the effect that
    // puts the test flag into the Overview's URL has run.
    await page.evaluate(CLICK_TEAM_ON_FIRST_PAINT);
    await signInThroughPage(page, owner.email, owner.password);
    await page.getByRole('heading', { name: 'Team', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/dashboard/team');
  });

  it('a merchant without a live connector opens on test data, the banner says why, and the switch still shows live', async () => {
    const page = await signedIn(testOnly, '/payments');
    await paymentsHeading(page);
    await banner(page).waitFor();
    await page.getByText('This merchant has no live connector yet', { exact: false }).waitFor();
    await page.getByRole('link', { name: '$17.00' }).waitFor();
    expect(await page.getByLabel('Test data').isChecked()).to.equal(true);
    await page.waitForURL((url) => url.searchParams.get('test') === '1');

    await page.getByLabel('Test data').uncheck();
    await page.getByText('No payments yet.', { exact: false }).waitFor();
    expect(await banner(page).count()).to.equal(0);
  });
});
