/**
 * The Dashboard opens on the Overview (headless Chromium): after sign-in the first page is the last 30 days as
 * charts — captured volume, approval rate (per day and per connector), active subscriptions with MRR, dunning and
 * recovered — with the figures the API computed from a real charge and subscription. Screenshots at desktop and
 * 360 px under test-output/dashboard/; at 360 px nothing overflows the page sideways.
 */
import { expect } from 'chai';
import { createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { subscribed, type Subscribed } from '../helpers/subscriptions';
import { cardCharge, cardToken, charge } from '../helpers/transactions';
import { CARDS } from '../helpers/vault';

describe('Merchant Dashboard overview in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  const ui = useDashboardBrowser();
  let sub: Subscribed;

  before(async () => {
    // A real USD 9.99 subscription (its first charge approved), a second approved charge and a declined one.
    sub = await subscribed(new Date());
    const paid = await charge(sub.tenant, cardCharge(await cardToken(sub.tenant), { amount: 2500 }));
    expect(paid.body.data.status, paid.text).to.equal('authorized');
    const declined = await charge(sub.tenant, cardCharge(await cardToken(sub.tenant, CARDS.doNotHonor)));
    expect(declined.body.data.status, declined.text).to.equal('failed');
    const owner = await createMerchantUser(sub.tenant.organization_id, [sub.tenant.merchant_id], { role: 'viewer' });
    await ui.page.goto(`${ui.browser.base}/`);
    await signInThroughPage(ui.page, owner.email, owner.password);
  });

  it('opens on the Overview after sign-in, with the figures of the last 30 days', async () => {
    await ui.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(new URL(ui.page.url()).pathname).to.equal('/dashboard/overview');
    const stats = ui.page.locator('.stats');
    // Captured: the 9.99 first charge and the 25.00 charge; 2 approved of 3 decided.
    await stats.getByText('$34.99').waitFor();
    expect(await stats.textContent()).to.include('2 payments approved');
    await stats.getByText('66.7%').waitFor();
    expect(await stats.textContent()).to.include('MRR $9.99');
    for (const title of [
      'Payment volume (USD)',
      'Approval rate',
      'Approval rate by connector',
      'Active subscriptions',
      'Renewals in dunning and recovered',
    ]) {
      await ui.page.getByRole('heading', { name: title, exact: true }).waitFor();
    }
    expect(await ui.page.locator('svg.chart').count()).to.equal(4);
    const connectors = ui.page.locator('.connector-rates');
    await connectors.getByRole('link', { name: 'provider_a #1' }).waitFor();
    expect(await connectors.textContent()).to.include('3 attempts: 2 approved, 1 declined');
    await ui.check('overview');
  });

  it('shows the charts one under the other at 360 px, nothing wider than the screen', async () => {
    await ui.page.setViewportSize({ width: 360, height: 740 });
    try {
      await ui.page.reload();
      await ui.page.getByRole('heading', { name: 'Approval rate by connector' }).waitFor();
      const widths = await ui.page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]');
      expect(widths, 'page scroll width vs. viewport').to.deep.equal([360, 360]);
      await ui.check('overview-360');
    } finally {
      await ui.page.setViewportSize({ width: 1200, height: 800 });
    }
  });

  it('shows the setup checklist until a webhook endpoint exists: connector and routing ticked, the webhook step links to Webhooks', async () => {
    await ui.page.goto(`${ui.browser.base}/overview`);
    const checklist = ui.page.locator('.setup-checklist');
    await checklist.getByRole('heading', { name: 'Set up payments (2 of 3 done)' }).waitFor();
    expect(await checklist.locator('li.done').count()).to.equal(2);
    await checklist.getByRole('link', { name: 'Add a webhook endpoint' }).click();
    await ui.page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  });
});
