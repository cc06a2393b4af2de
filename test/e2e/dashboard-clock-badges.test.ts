/**
 * Test-clock time is one time on the Dashboard, in headless Chromium: a subscription and a customer on a test clock
 * show their dates in the clock's time, with a badge naming the clock and its frozen time ("Test clock: Billing QA,
 * Jan 31, 2027…"); the charges, dated in real time, say so, on the subscription and on the payment's and order's
 * pages. A customer in real time gets no badge. The Overview of test data names each test clock with its time, since
 * a clock's subscriptions are counted in the clock's 30 days.
 */
import { expect } from 'chai';
import { createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant, customerInput } from '../helpers/factories';
import { sellableOffer } from '../helpers/checkout';
import { cascade } from '../helpers/transactions';
import { api } from '../helpers/http';
import { createClock, subscribeOnClock } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';
const shownDay = (iso: string) => new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' }).format(new Date(iso));

describe('Merchant Dashboard test-clock badges in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  const ui = useDashboardBrowser();

  it('a subscription and a customer on a test clock show the clock badge with its name and frozen time, as the Overview of test data does; a real-time customer has none', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId, firstCharge } = await subscribeOnClock(tenant, clock.id, offer.id);
    const realTime = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    expect(realTime.status, realTime.text).to.equal(201);

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, user.email, user.password);
    await ui.page.goto(`${ui.browser.base}/subscriptions/${sub.id}`);
    const badge = ui.page.getByTestId('clock-badge').first();
    await badge.getByText('Test clock: Billing QA,', { exact: false }).waitFor();
    await badge.getByText(shownDay(JAN_31), { exact: false }).waitFor();
    await ui.page.getByText('Dates in real time', { exact: false }).waitFor();
    await ui.check('subscription-clock-badge');

    await ui.page.goto(`${ui.browser.base}/customers/${customerId}`);
    await ui.page.getByTestId('clock-badge').getByText(shownDay(JAN_31), { exact: false }).waitFor();
    // The customer's payment and order: the clock's badge, and their dates said to be real time.
    for (const path of [`/payments/${firstCharge.id}`, `/orders/${firstCharge.order_id}`]) {
      await ui.page.goto(`${ui.browser.base}${path}`);
      await ui.page.getByTestId('clock-badge').getByText('Test clock: Billing QA,', { exact: false }).waitFor();
      await ui.page.getByText('Dates in real time', { exact: false }).waitFor();
    }
    await ui.check('order-clock-badge');
    await ui.page.goto(`${ui.browser.base}/customers/${realTime.body.data.id}`);
    await ui.page.getByText('None (real time)').waitFor();
    expect(await ui.page.getByTestId('clock-badge').count()).to.equal(0);

    await ui.page.goto(`${ui.browser.base}/overview?test=1`);
    await ui.page.getByText('Subscriptions on a test clock move in the clock’s time', { exact: false }).waitFor();
    const overviewBadge = ui.page.getByTestId('clock-badge');
    await overviewBadge.getByText(`Test clock: Billing QA, ${shownDay(JAN_31)}`, { exact: false }).waitFor();
    await ui.check('overview-clock-badge');
  });
});
