/**
 * The merchant Dashboard's Webhooks page in headless Chromium: an owner adds an endpoint (its secret shown once),
 * picks its events; a delivery appears without reloading the page, with the payload sent and the endpoint's answer;
 * redeliver adds a manual attempt by itself; editing events, rotating the secret and disabling ask first and
 * show their result. Screenshots at desktop and 360 px under test-output/dashboard/.
 */
import { expect } from 'chai';
import { createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { postConnector } from '../helpers/connectors';
import { createTenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { configsPath, recordTestEvent, startReceiver, type Receiver } from '../helpers/webhooks';

describe('Merchant Dashboard Webhooks page in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  const ui = useDashboardBrowser();
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
  });

  it('adds an endpoint, sees a delivery arrive with payload and response, redelivers, edits events, rotates and disables', async () => {
    const tenant = await createTenant();
    // A merchant with a live connector: the Dashboard opens on live data, the mode of the live event recorded below.
    await postConnector(tenant, 'provider_a', { name: 'Live card', is_test_mode: false });
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'owner' });
    receiver.respond('/hook', () => ({ status: 200, body: 'thanks from the receiver' }));
    const url = receiver.url('/hook');
    const configs = async () =>
      (await api.get(configsPath(tenant.merchant_id), { key: tenant.merchant_secret_key })).body.data;

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
    await ui.page.goto(`${ui.browser.base}/webhooks`);
    await ui.page.getByText('No webhook endpoint yet. Add one below.').waitFor();
    await ui.page.getByRole('button', { name: 'Add an endpoint' }).click();
    await ui.page.getByLabel('Endpoint URL').fill(url);
    await ui.page.getByLabel('Description (optional)').fill('Order system');
    await ui.page.getByLabel('Every event, including ones added later').uncheck();
    await ui.page.getByLabel('transaction.authorized', { exact: true }).check();
    await ui.page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await ui.page.getByTestId('signing-secret').textContent();
    expect(secret).to.match(/^whsec_/);
    const [config] = await configs();
    expect(config).to.include({ url, description: 'Order system', is_active: true });
    expect(config.event_filter).to.deep.equal(['transaction.authorized']);
    await ui.check('webhooks-added');

    // An event is delivered; the row appears without a reload (the list refreshes itself).
    await recordTestEvent(tenant, 'transaction.authorized', { id: 'tx_dashboardhook', status: 'authorized' });
    await receiver.waitFor((requests) => requests.some((r) => r.path === '/hook'));
    const deliveries = ui.page.getByRole('region', { name: 'Webhook deliveries' });
    await deliveries
      .locator('tr[data-delivery]', { hasText: 'transaction.authorized' })
      .first()
      .waitFor({ timeout: 30_000 });
    await deliveries.getByText('Payload and response').first().click();
    await deliveries.getByText('thanks from the receiver').waitFor();
    expect(await deliveries.locator('pre').first().textContent()).to.include('tx_dashboardhook');
    await ui.check('webhooks-delivery');

    await deliveries.getByRole('button', { name: 'Redeliver transaction.authorized' }).first().click();
    await deliveries.getByText('1 (manual)').waitFor({ timeout: 30_000 });

    // Edit: one more event.
    const row = ui.page.locator(`tr[data-endpoint="${url}"]`);
    await row.getByRole('button', { name: 'Edit' }).click();
    await row.getByLabel('transaction.failed', { exact: true }).check();
    await row.getByRole('button', { name: 'Save changes' }).click();
    await ui.page.getByText(`${url} is saved.`).waitFor();
    expect((await configs())[0].event_filter).to.deep.equal(['transaction.authorized', 'transaction.failed']);

    // Rotate: asks first, then shows the new secret once.
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await row.getByText('Replace the signing secret?', { exact: false }).waitFor();
    await row.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Rotate secret' }).click();
    await ui.page.getByText('The secret is rotated', { exact: false }).waitFor();
    const rotated = await ui.page.getByTestId('signing-secret').textContent();
    expect(rotated)
      .to.match(/^whsec_/)
      .and.not.equal(secret);

    // Disable: asks first; the chip and the API say so.
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Disable' }).click();
    await ui.page.getByText(`${url} is disabled.`).waitFor();
    await row.getByText('Disabled', { exact: true }).waitFor();
    expect((await configs())[0].is_active).to.equal(false);
    await ui.check('webhooks');

    await ui.page.setViewportSize({ width: 360, height: 740 });
    await ui.page.reload();
    await row.waitFor();
    await ui.check('360px-webhooks');
    await ui.page.setViewportSize({ width: 1200, height: 800 });
  });
});
