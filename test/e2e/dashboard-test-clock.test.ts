/**
 * The test clock control of the merchant Dashboard in headless Chromium: a subscription whose customer is
 * on a clock shows the clock on its page; advancing it by a day, to the next renewal and to a date moves the clock,
 * and the page then shows what the workflows did meanwhile — the new period, the cycle count and the renewal
 * charge. Everything runs on the real stack (subscription workflow, charge cascade, sandbox PSP).
 */
import { expect } from 'chai';
import { createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant, type Tenant } from '../helpers/factories';
import { sellableOffer } from '../helpers/checkout';
import { cascade } from '../helpers/transactions';
import { api } from '../helpers/http';
import { chargesOf, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';
/** Dates as the page shows them (the browser's locale is en-US; the stack runs in the machine's time zone). */
const shownDay = (iso: string) => new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' }).format(new Date(iso));

describe('Merchant Dashboard test clock control in headless Chromium (e2e)', function () {
  this.timeout(300_000);
  const ui = useDashboardBrowser();
  let tenant: Tenant;

  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, user.email, user.password);
  });

  const panel = () => ui.page.getByTestId('test-clock');
  const clockOf = async (id: string) =>
    (await api.get(`/test-clocks/${id}`, { key: tenant.merchant_secret_key })).body.data;
  const fact = (name: string) => ui.page.locator('dt', { hasText: name }).locator('xpath=following-sibling::dd[1]');

  /** Presses one of the advance buttons and waits until the page shows the clock ready at `frozenTime`. */
  async function advanceFromPage(button: string, frozenTime: string) {
    await panel().getByRole('button', { name: button }).click();
    await panel().getByText(shownDay(frozenTime), { exact: false }).waitFor({ timeout: 120_000 });
    await panel().getByRole('button', { name: 'Advance by one day' }).waitFor();
    expect(await clockOf(clockId)).to.include({ status: 'ready', frozen_time: frozenTime });
  }
  let clockId: string;

  it('shows the clock on the subscription page and advances it by a day, to the next renewal and to a date', async () => {
    const clock = await createClock(tenant, JAN_31);
    clockId = clock.id;
    const { offer } = await sellableOffer(tenant); // monthly, USD 9.99
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);

    await ui.page.goto(`${ui.browser.base}/subscriptions/${sub.id}`);
    await ui.page.getByTestId('subscription-status').getByText('Active').waitFor();
    await panel().getByText(clock.id).waitFor();
    await panel().getByText(shownDay(JAN_31), { exact: false }).waitFor();
    expect(await fact('Cycles').textContent()).to.equal('1');
    // "To the date" has nothing to go to until a date is picked.
    expect(await panel().getByRole('button', { name: 'Advance to the date' }).isDisabled()).to.equal(true);
    await ui.check('subscription-test-clock');

    // By a day: nothing is due yet, the clock moves and the subscription stays in its first period.
    await advanceFromPage('Advance by one day', '2027-02-01T10:00:00.000Z');
    expect(await fact('Cycles').textContent()).to.equal('1');
    expect((await chargesOf(tenant, customerId)).length).to.equal(1);

    // To the next renewal (Feb 28; the period ends on month ends, as it started on Jan 31): the page shows the new period, the second cycle and the renewal charge.
    await advanceFromPage('Advance to the next renewal', '2027-02-28T10:00:00.000Z');
    await fact('Cycles').getByText('2', { exact: true }).waitFor();
    expect(await fact('Current period').textContent()).to.equal(
      `${shownDay('2027-02-28T10:00:00.000Z')} – ${shownDay('2027-03-31T10:00:00.000Z')}`,
    );
    const renewals = ui.page.getByRole('region', { name: 'Charges' }).getByRole('listitem');
    await renewals.nth(1).waitFor();
    expect(await renewals.count()).to.equal(2);
    expect(await renewals.first().textContent()).to.include('$9.99');
    const charges = await chargesOf(tenant, customerId);
    expect(charges.map((tx) => [tx.subscription_id, tx.status, tx.amount_authorized])).to.deep.equal([
      [sub.id, 'authorized', 999],
      [sub.id, 'authorized', 999],
    ]);
    await ui.check('subscription-test-clock-renewed');

    // To a date (May 1): the renewals of Mar 31 and Apr 30 happen, each in its own period.
    await panel().getByLabel('Date to advance to').fill('2027-05-01');
    await advanceFromPage('Advance to the date', '2027-05-01T10:00:00.000Z');
    await fact('Cycles').getByText('4', { exact: true }).waitFor();
    expect(await fact('Current period').textContent()).to.equal(
      `${shownDay('2027-04-30T10:00:00.000Z')} – ${shownDay('2027-05-31T10:00:00.000Z')}`,
    );
    await renewals.nth(3).waitFor();
    expect(await renewals.count()).to.equal(4);
    expect(await subscriptionOf(tenant, sub.id)).to.include({
      cycles_completed: 4,
      current_period_start: '2027-04-30T10:00:00.000Z',
    });
  });

  it('a backwards date is refused with the reason shown, and the clock stays where it was', async () => {
    const clock = await createClock(tenant, JAN_31);
    clockId = clock.id;
    const { offer } = await sellableOffer(tenant);
    const { sub } = await subscribeOnClock(tenant, clock.id, offer.id);
    await ui.page.goto(`${ui.browser.base}/subscriptions/${sub.id}`);
    await panel().getByText(clock.id).waitFor();
    await panel().getByLabel('Date to advance to').fill('2027-01-01');
    await panel().getByRole('button', { name: 'Advance to the date' }).click();
    await panel().getByRole('alert').getByText('only moves forward', { exact: false }).waitFor();
    expect(await clockOf(clock.id)).to.include({ status: 'ready', frozen_time: JAN_31 });
    ui.browser.problems.length = 0; // the 422 is logged by the browser as a failed request
  });

  it('"Fail the next renewal" with a failure_code: the renewal the clock then reaches declines so, into dunning', async () => {
    const clock = await createClock(tenant, JAN_31);
    clockId = clock.id;
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId } = await subscribeOnClock(tenant, clock.id, offer.id);
    await ui.page.goto(`${ui.browser.base}/subscriptions/${sub.id}`);
    await panel().getByText(clock.id).waitFor();
    await panel().getByLabel('Failure code').selectOption('do_not_honor');
    await panel().getByRole('button', { name: 'Fail the next renewal' }).click();
    await panel().getByRole('status').getByText('The next renewal will decline with do_not_honor').waitFor();
    await ui.check('subscription-test-clock-fail-next-renewal');

    await advanceFromPage('Advance to the next renewal', '2027-02-28T10:00:00.000Z');
    await ui.page.getByTestId('subscription-status').getByText('Dunning').waitFor();
    const [, renewal] = await chargesOf(tenant, customerId);
    expect(renewal).to.include({ status: 'failed', failure_code: 'do_not_honor' });
  });
});
