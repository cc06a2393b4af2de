/**
 * The merchant Dashboard web app end to end in headless Chromium (Debian's `chromium`, driven by playwright-core):
 * the bootstrap owner sets a password through the one-time link and signs in, finds a subscription, pauses,
 * resumes, cancels it at period end and reactivates it — each change seen in the page and through the API. Every
 * main page is screenshot under test-output/dashboard/, checked by axe-core (0 serious or critical violations)
 * and loads with no Content-Security-Policy violation; the subscription page also fits 360 px.
 * Skips only when Chromium is missing outside CI; in CI (.ci/run installs it) it must run.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { bootstrapMerchantOwner } from '../../domain/tenants/tenants.bootstrap';
import { NEW_PASSWORD } from '../helpers/dashboard';
import {
  OUTPUT_DIR,
  checkPage as checkWith,
  openDashboardBrowser,
  requireChromium,
  type DashboardBrowser,
} from '../helpers/dashboard-browser';
import { uniqueEmail } from '../helpers/factories';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { subscribed, type Subscribed } from '../helpers/subscriptions';
import { createConfig } from '../helpers/webhooks';
import { createOffer } from '../helpers/catalog';

describe('Merchant Dashboard web app in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  let browser: DashboardBrowser | undefined;

  before(function () {
    requireChromium(this);
  });

  after(async () => {
    await browser?.close();
  });

  const checkPage = (page: Page, name: string) => checkWith(page, name, browser!.problems);

  it('signs in with the bootstrap owner, pauses, resumes, cancels at period end and reactivates a subscription', async () => {
    const sub: Subscribed = await subscribed(new Date());
    await startSubscriptionWorkflow(stack().api.deps.temporal.client, sub.state);
    const { tenant } = sub;
    const subscriptionId = sub.state.subscriptionId;
    await createConfig(tenant, { url: 'https://hooks.example.com/switchyard', description: 'Order system' });
    const email = uniqueEmail('dashboard-owner');
    const owner = await bootstrapMerchantOwner(
      stack().orm.em.fork(),
      tenant.organization_id,
      tenant.merchant_id,
      email,
    );
    const readByApi = async () => {
      const res = await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${subscriptionId}`, {
        key: tenant.merchant_secret_key,
      });
      expect(res.status, res.text).to.equal(200);
      return res.body.data as { status: string; cancel_at_period_end: boolean; current_offer_id: string };
    };

    browser = await openDashboardBrowser();
    const page = await browser.newPage();
    const { base } = browser;

    // The one-time link from the bootstrap: choose a password, then sign in.
    await page.goto(`${base}/reset-password?dashboard=merchant&token=${owner.password_setup_token}`);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByText('Your password is set.').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in to your merchant Dashboard' }).waitFor();
    await checkPage(page, 'sign-in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // The Dashboard opens on the Overview; find the subscription in the list, open it.
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();
    await checkPage(page, 'subscriptions');
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator(`a[href="/dashboard/subscriptions/${subscriptionId}"]`).click();
    await page.getByTestId('subscription-status').getByText('Active').waitFor();
    await checkPage(page, 'subscription');
    // Operations the state forbids are disabled with the reason next to them.
    expect(await page.getByRole('button', { name: 'Resume' }).isDisabled()).to.equal(true);
    expect(await page.getByText('Only a paused subscription can be resumed.').isVisible()).to.equal(true);

    const operate = async (button: string, confirm: string) => {
      await page.getByRole('button', { name: button, exact: true }).click();
      await page.getByRole('button', { name: confirm }).click();
      await page.getByRole('status').filter({ hasText: 'The subscription is now' }).waitFor();
    };

    await operate('Pause', 'Confirm: pause');
    await page.getByTestId('subscription-status').getByText('Paused').waitFor();
    expect((await readByApi()).status).to.equal('paused');
    expect(await page.getByRole('button', { name: 'Pause', exact: true }).isDisabled()).to.equal(true);

    await operate('Resume', 'Confirm: resume');
    await page.getByTestId('subscription-status').getByText('Active').waitFor();
    expect((await readByApi()).status).to.equal('active');

    await operate('Cancel at period end', 'Confirm: cancel at period end');
    await page.getByTestId('cancel-at-period-end').waitFor();
    expect(await readByApi()).to.include({ status: 'active', cancel_at_period_end: true });

    await operate('Reactivate', 'Confirm: reactivate');
    await page.getByTestId('cancel-at-period-end').waitFor({ state: 'detached' });
    expect(await readByApi()).to.include({ status: 'active', cancel_at_period_end: false });

    // Change offer: only the family's offers, and what the customer is charged shown before confirming.
    const { offer: upgrade } = await createOffer(tenant.merchant_id, {
      familyId: sub.familyId,
      prices: [{ currency: 'USD', amount: 1999, isDefault: true }],
    });
    await page.getByRole('button', { name: 'Change offer', exact: true }).click();
    await page.getByLabel('New offer').selectOption(upgrade.id);
    const preview = page.getByRole('status').filter({ hasText: 'What the customer is charged' });
    await preview.getByText('Nothing is charged now; the new price applies from the next renewal.').waitFor();
    expect(await preview.textContent()).to.include('$19.99 per month (now $9.99 per month)');
    await checkPage(page, 'subscription-change-offer');
    await page.getByRole('button', { name: 'Confirm: change offer' }).click();
    await page.getByRole('heading', { name: /Offer 1$/ }).waitFor();
    expect((await readByApi()).current_offer_id).to.equal(upgrade.id);

    // The timeline names who did each move: the signed-in owner.
    const timeline = page.getByTestId('transitions');
    await timeline.getByText('Reactivation').waitFor();
    for (const move of ['Pause', 'Resume', 'Cancellation', 'Reactivation', 'Upgrade']) {
      expect(await timeline.getByText(move, { exact: true }).count(), move).to.be.greaterThan(0);
    }
    expect(await timeline.textContent()).to.include(email);
    await checkPage(page, 'subscription-after-moves');

    // At 360 px the page still fits: no sideways scrolling of the page itself.
    await page.setViewportSize({ width: 360, height: 740 });
    await page.reload();
    await page.getByTestId('subscription-status').waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(360);
    await checkPage(page, 'subscription-360px');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(360);
    await checkPage(page, 'payments-360px');
    await page.setViewportSize({ width: 1200, height: 800 });

    // The other main pages: loaded, screenshot, accessible.
    const visit = async (link: string, heading: string, name: string) => {
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: link }).click();
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await checkPage(page, name);
    };
    await visit('Payments', 'Payments', 'payments');
    await page.locator('a[href^="/dashboard/payments/tx_"]').first().click();
    await page.getByRole('heading', { name: 'Attempts' }).waitFor();
    await page.locator('.timeline li').first().waitFor();
    await checkPage(page, 'payment');
    await visit('Orders', 'Orders', 'orders');
    await page.locator('a[href^="/dashboard/orders/ord_"]').first().click();
    await page.getByRole('heading', { name: 'Items' }).waitFor();
    await checkPage(page, 'order');
    await visit('Webhooks', 'Webhooks', 'webhooks');
    const endpoints = page.getByRole('region', { name: 'Webhook endpoints' });
    expect(await endpoints.getByText('https://hooks.example.com/switchyard').isVisible()).to.equal(true);
    // The subscription moves above were delivered to it: one row per event, with the response.
    const deliveries = page.getByRole('region', { name: 'Webhook deliveries' });
    expect(await deliveries.getByText('subscription.paused').count()).to.be.greaterThan(0);
    await visit('Connectors', 'Connectors', 'connectors');
    await page.getByRole('link', { name: 'Add a connector' }).click();
    await page.getByLabel('Provider').selectOption('provider_a');
    await page.getByLabel('Secret key').waitFor();
    await checkPage(page, 'connector-new');
    await page.getByRole('link', { name: 'Connectors', exact: true }).first().click();
    await page.locator('a[href^="/dashboard/connectors/conn_"]').first().click();
    await page.getByRole('heading', { name: 'Received webhooks' }).waitFor();
    await checkPage(page, 'connector');
    await page.getByRole('link', { name: 'Change password' }).click();
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
    await checkPage(page, 'change-password');

    // Quiet refresh: an access token about to expire is exchanged on the next call; the page just works.
    const stored = () => page.evaluate<string>("sessionStorage.getItem('switchyard.dashboard.session')");
    const expireSoon = (at: string) =>
      page.evaluate(`(() => {
        const session = JSON.parse(sessionStorage.getItem('switchyard.dashboard.session'));
        session.expiresAt = ${at};
        sessionStorage.setItem('switchyard.dashboard.session', JSON.stringify(session));
      })()`);
    const before = JSON.parse(await stored());
    await expireSoon('Date.now() + 1000');
    await page.goto(`${base}/subscriptions`);
    await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();
    await page.locator(`a[href="/dashboard/subscriptions/${subscriptionId}"]`).waitFor();
    const after = JSON.parse(await stored());
    expect(after.refreshToken).to.not.equal(before.refreshToken);
    expect(after.expiresAt).to.be.greaterThan(Date.now() + 60_000);

    // A session ended elsewhere (here: logged out through the API) lands on sign-in at the next refresh.
    const logout = await api.post('/auth/logout', { headers: { authorization: `Bearer ${after.accessToken}` } });
    expect(logout.status, logout.text).to.equal(200);
    await expireSoon('Date.now() - 1000');
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Sign in to your merchant Dashboard' }).waitFor();
    await page.getByText('Your session ended; sign in again.').waitFor();
    expect(page.url()).to.equal(`${base}/sign-in?next=%2Fpayments`);

    // Signing in again returns to where the person was; sign out ends the session and guards every page.
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to your merchant Dashboard' }).waitFor();
    await page.goto(`${base}/subscriptions`);
    await page.getByRole('heading', { name: 'Sign in to your merchant Dashboard' }).waitFor();
    expect(await stored()).to.equal(null);
    console.log(`    screenshots: ${OUTPUT_DIR}`);
  });
});
