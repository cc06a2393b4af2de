/**
 * The merchant Dashboard's Activity page in headless Chromium (playwright-core): who did what on the merchant, read
 * from GET /merchant/activity, newest first: the action, the actor (an API key or a person, "you" for the signed-in
 * one) and what changed, including who armed a test-clock subscription's renewal failure. Screenshot under test-output/dashboard/, axe-core with no serious violation.
 */
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { keyId } from '../helpers/merchants';
import { createClock, subscribeOnClock } from '../helpers/test-clocks';
import { sellableOffer } from '../helpers/checkout';
import { cascade } from '../helpers/transactions';

describe('Merchant Dashboard Activity page in headless Chromium (e2e)', function () {
  this.timeout(120_000);
  const ui = useDashboardBrowser('test');

  it('a viewer reads who did what: a test clock created and advanced by an API key, newest first, with what changed', async () => {
    const tenant = await createTenant();
    const viewer = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'viewer' });
    const clock = await createClock(tenant, '2027-01-31T10:00:00.000Z');
    const advanced = await api.post(`/test-clocks/${clock.id}/advance`, {
      key: tenant.merchant_secret_key,
      body: { frozen_time: '2027-02-28T10:00:00.000Z' },
    });
    if (advanced.status !== 200) throw new Error(advanced.text);

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, viewer.email, viewer.password);
    await ui.page.getByRole('link', { name: 'Activity' }).click();
    await ui.page.getByRole('heading', { name: 'Activity', exact: true }).waitFor();
    const rows = ui.page.locator('tr[data-activity]');
    await rows.first().waitFor();
    const first = rows.nth(0);
    await first.getByText('Test clock advanced').waitFor();
    await first.getByText(`API key ${await keyId(tenant.merchant_secret_key)}`).waitFor();
    await first.getByText(/Frozen time: .*2027.* → .*2027/).waitFor();
    await rows.nth(1).getByText('Test clock created').waitFor();
    await ui.check('activity');
  });

  it('arming a renewal failure in the Dashboard is on the Activity page: the member by name, the subscription and the failure code', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const viewer = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'viewer' });
    const clock = await createClock(tenant, '2027-01-31T10:00:00.000Z');
    const { offer } = await sellableOffer(tenant);
    const { sub } = await subscribeOnClock(tenant, clock.id, offer.id);
    const session = await signIn('merchant', owner);
    const armed = await api.post(`/merchant/test-clocks/${clock.id}/subscriptions/${sub.id}/fail-next-renewal`, {
      headers: bearer(session.access_token, { 'x-merchant-id': tenant.merchant_id }),
      body: { failure_code: 'do_not_honor' },
    });
    if (armed.status !== 200) throw new Error(armed.text);

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, viewer.email, viewer.password);
    await ui.page.getByRole('link', { name: 'Activity' }).click();
    const first = ui.page.locator('tr[data-activity]').first();
    await first.getByText('Test clock renewal failure armed').waitFor();
    await first.getByText('Mia Merchant').waitFor();
    await first.getByText(`Subscription id: ${sub.id}`).waitFor();
    await first.getByText('Failure code: do_not_honor').waitFor();
    await ui.check('activity-renewal-failure');
  });
});
