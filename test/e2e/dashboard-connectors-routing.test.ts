/**
 * The merchant Dashboard's Connectors and Routing pages in headless Chromium: a connector without a webhook secret is
 * flagged; a refused credential test is an error; a connector is edited, deactivated and deleted, each asking first. On
 * the Routing page a staff member adds a pix-capable connector to the tree, reorders, adds a condition (a bad JSON
 * value is caught inline) and simulates charges; the connector menus and the simulator name each provider with the real
 * API it speaks, as the Connectors page does ("Cards (Provider A — Stripe API)").
 * The hosted checkout follows routing: no Pix (and no Elo card) while routing has only a card connector, Pix once the
 * pix-capable connector is in the tree — and "Live at checkout" on the Connectors page says the same.
 * Screenshots at desktop and 360 px under test-output/dashboard/.
 */
import { expect } from 'chai';
import path from 'node:path';
import { createMerchantUser } from '../helpers/dashboard';
import { OUTPUT_DIR, signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { createOffer } from '../helpers/catalog';
import { createSession } from '../helpers/checkout';
import { postConnector, validCredentials, validWebhookSecret } from '../helpers/connectors';
import { invalidCredentialsFor } from '../helpers/sandbox';
import { stack } from '../helpers/stack';

const ELO = '6362970000457013';

describe('Merchant Dashboard Connectors and Routing pages in headless Chromium (e2e)', function () {
  this.timeout(300_000);
  const ui = useDashboardBrowser();

  const at360 = async (name: string) => {
    await ui.page.setViewportSize({ width: 360, height: 740 });
    await ui.check(`360px-${name}`);
    await ui.page.setViewportSize({ width: 1200, height: 800 });
  };

  it('routing decides what the checkout offers; staff add a pix connector to the tree, reorder, add a condition and simulate', async () => {
    const tenant = await createTenant();
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'owner' });
    const cards = await postConnector(tenant, 'provider_a', { name: 'Cards' });
    const pix = await postConnector(tenant, 'provider_c', {
      name: 'Pix account',
      webhook_secret: validWebhookSecret('provider_c'),
    });
    const created = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Everything', is_active: true, payment_method: '*', default_merchant_connector_id: cards.id },
    });
    expect(created.status, created.text).to.equal(201);
    const profileId = created.body.id;
    const { offer } = await createOffer(tenant.merchant_id, { billingCycle: 'none' });
    const checkout = await createSession(tenant, { offer_id: offer.id, selected_currency: 'BRL' });
    const checkoutUrl = `${stack().url}/checkout/${checkout.id}#key=${tenant.merchant_public_key}`;

    // The buyer's page: card only (provider_c is active but not in routing), and an Elo card is refused up front.
    const buyer = await ui.browser.context.newPage();
    await buyer.goto(checkoutUrl);
    await buyer.locator('#total[data-amount]').waitFor();
    expect(await buyer.locator('.method[data-method="pix"]').isHidden()).to.equal(true);
    await buyer.frameLocator('iframe').locator('#number').pressSequentially(ELO, { delay: 10 });
    await buyer.getByText('This shop does not take Elo cards.', { exact: false }).waitFor();
    expect(await buyer.locator('#submit').isDisabled()).to.equal(true);
    await buyer.screenshot({ path: path.join(OUTPUT_DIR, 'checkout-elo-refused.png'), fullPage: true });
    await buyer.setViewportSize({ width: 360, height: 740 });
    await buyer.screenshot({ path: path.join(OUTPUT_DIR, '360px-checkout-elo-refused.png'), fullPage: true });
    await buyer.setViewportSize({ width: 1200, height: 800 });

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
    await ui.page.goto(`${ui.browser.base}/connectors`);
    const live = ui.page.getByRole('region', { name: 'Checkout methods' });
    await live.locator('tr[data-method="pix"]', { hasText: 'Not offered' }).waitFor();
    await live.locator('tr[data-method="credit_card"]', { hasText: /Offered/ }).waitFor();
    // Cards has no webhook secret: flagged in the list; Pix has one.
    const list = ui.page.getByRole('region', { name: 'Connectors', exact: true });
    await list.locator('tr', { hasText: 'Cards' }).getByText('No webhook secret: polling only').waitFor();
    expect(await list.locator('tr', { hasText: 'Pix account' }).getByText('No webhook secret').count()).to.equal(0);
    await ui.check('connectors-live-at-checkout');

    // Routing: the profile's tree. Add Pix, then Cards, move Cards up.
    await ui.page.getByRole('link', { name: 'Routing', exact: true }).click();
    await ui.page.getByRole('link', { name: 'Everything' }).click();
    await ui.page.getByRole('heading', { name: 'Routing tree' }).waitFor();
    const top = ui.page.getByRole('form', { name: 'Add a connector, top level' });
    await top
      .getByLabel('Connector to add, top level')
      .selectOption({ label: 'Pix account (Provider C — Mercado Pago API)' });
    await top.getByRole('button', { name: 'Add connector' }).click();
    await ui.page.getByText('Pix account added.').waitFor();
    await top.getByLabel('Connector to add, top level').selectOption({ label: 'Cards (Provider A — Stripe API)' });
    await top.getByRole('button', { name: 'Add connector' }).click();
    await ui.page.getByText('Cards added.').waitFor();
    await ui.page.getByRole('button', { name: 'Move Cards up' }).click();
    await ui.page.getByText('Cards moved up.').waitFor();
    const nodes = async () =>
      (
        await api.get(`/merchants/${tenant.merchant_id}/routing-profiles/${profileId}/nodes`, {
          key: tenant.merchant_secret_key,
        })
      ).body.data.map((n: any) => [n.node_type, n.connector_name ?? n.condition_field]);
    expect(await nodes()).to.deep.equal([
      ['action', 'Cards'],
      ['action', 'Pix account'],
    ]);

    // A condition: the value is JSON, a typo is caught before anything is sent.
    await top.getByRole('button', { name: 'Add condition' }).click();
    const condition = ui.page.getByRole('form', { name: 'Condition' });
    await condition.getByLabel('When the charge’s').selectOption('amount');
    await condition.getByLabel('Comparison').selectOption('gte');
    await condition.getByLabel('Value (JSON)').fill('10000x');
    await condition.getByText('Not valid JSON', { exact: false }).waitFor();
    expect(await condition.getByRole('button', { name: 'Add condition' }).isDisabled()).to.equal(true);
    await condition.getByLabel('Value (JSON)').fill('10000');
    await condition.getByRole('button', { name: 'Add condition' }).click();
    await ui.page.getByText('Condition added', { exact: false }).waitFor();
    await ui.page.getByText('Amount ≥ 10000', { exact: false }).first().waitFor();
    const order = ui.page.getByRole('list', { name: 'Fallback order' });
    expect(await order.locator('li').allTextContents()).to.deep.equal(['Cards (also the default)', 'Pix account']);
    const defaults = ui.page.getByLabel('Default connector (tried last)').first().locator('option');
    expect(await defaults.allTextContents()).to.include.members([
      'Cards (Provider A — Stripe API)',
      'Pix account (Provider C — Mercado Pago API)',
    ]);
    await ui.check('routing-tree');

    // Simulate: a pix skips the card-only connector; so does an Elo card, which only the pix-capable one takes.
    const simulate = ui.page.getByRole('region', { name: 'Simulate a charge' });
    await simulate.getByLabel('Payment method').selectOption('pix');
    await simulate.getByLabel('Currency').fill('BRL');
    await simulate.getByLabel('Amount').fill('49.90');
    await simulate.getByRole('button', { name: 'Simulate' }).click();
    const plan = ui.page.getByRole('list', { name: 'Simulated plan' });
    await plan.waitFor();
    expect(await plan.locator('li').allTextContents()).to.deep.equal([
      'Pix account (Provider C — Mercado Pago API) — fallback',
    ]);
    await ui.page
      .getByRole('list', { name: 'Skipped connectors' })
      .getByText('Cards: it does not take this method')
      .first()
      .waitFor();
    await simulate.getByLabel('Payment method').selectOption('credit_card');
    await simulate.getByLabel('Card brand').selectOption('elo');
    await simulate.getByRole('button', { name: 'Simulate' }).click();
    await ui.page
      .getByRole('list', { name: 'Skipped connectors' })
      .getByText('Cards: it does not take this card brand')
      .first()
      .waitFor();
    expect(await plan.locator('li').allTextContents()).to.deep.equal([
      'Pix account (Provider C — Mercado Pago API) — fallback',
    ]);
    await ui.check('routing-simulate');
    await at360('routing-simulate');

    // The buyer's page now offers Pix, and the Elo card is taken; staff see the same on the Connectors page.
    await buyer.reload();
    await buyer.locator('#total[data-amount]').waitFor();
    await buyer.locator('.method[data-method="pix"]:not([hidden])').waitFor();
    await buyer.screenshot({ path: path.join(OUTPUT_DIR, 'checkout-pix-offered.png'), fullPage: true });
    await buyer.frameLocator('iframe').locator('#number').pressSequentially(ELO, { delay: 10 });
    expect(await buyer.locator('#brand-note').isHidden()).to.equal(true);
    await buyer.close();
    await ui.page.goto(`${ui.browser.base}/connectors`);
    await live.locator('tr[data-method="pix"]', { hasText: /Offered/ }).waitFor();
    expect(await live.locator('tr[data-method="pix"]').textContent()).to.include(pix.name);
    expect(await live.locator('tr[data-method="pix"]').textContent()).to.not.include('Not offered');
    await at360('connectors-live-at-checkout');
  });

  it('a refused credential test is an error; staff fix the credentials, deactivate and delete the connector', async () => {
    const tenant = await createTenant();
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'owner' });
    ui.page = await ui.browser.newPage();
    const old = await postConnector(tenant, 'provider_a', {
      name: 'Old account',
      credentials: invalidCredentialsFor('provider_a'),
    });
    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
    await ui.page.goto(`${ui.browser.base}/connectors/${old.id}`);
    await ui.page.getByText('No webhook secret: polling only.').waitFor();
    await ui.page.getByText('settled only when Switchyard polls the provider', { exact: false }).waitFor();

    await ui.page.getByRole('button', { name: 'Test the credentials' }).click();
    const refused = ui.page.getByRole('alert').filter({ hasText: 'Credential test failed' });
    await refused.waitFor({ timeout: 60_000 });
    expect(await refused.getAttribute('class')).to.include('error');
    await ui.check('connector-test-failed');
    await at360('connector-test-failed');

    // Edit: new credentials and a webhook secret.
    await ui.page.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = ui.page.getByRole('form', { name: 'Edit the connector' });
    await form.getByLabel('Name').fill('Main account');
    await form.getByLabel('Secret key').fill(validCredentials('provider_a').secret_key);
    await form.getByLabel('Webhook signing secret').fill(validWebhookSecret('provider_a'));
    await form.getByRole('button', { name: 'Save changes' }).click();
    await ui.page.getByText('Changes saved.').waitFor();
    await ui.page.getByRole('heading', { name: 'Main account' }).waitFor();
    expect(await ui.page.getByText('No webhook secret: polling only.').count()).to.equal(0);
    await ui.page.getByRole('button', { name: 'Test the credentials' }).click();
    await ui.page.getByText('The provider accepted the credentials', { exact: false }).waitFor({ timeout: 60_000 });

    // Deactivate asks first.
    await ui.page.getByRole('button', { name: 'Deactivate', exact: true }).click();
    const confirm = ui.page.getByRole('group', { name: 'Confirm' });
    await confirm.getByText('Routing skips it', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Deactivate' }).click();
    await ui.page.getByText('Connector deactivated.').waitFor();
    const stored = await api.get(`/merchants/${tenant.merchant_id}/connectors/${old.id}`, {
      key: tenant.merchant_secret_key,
    });
    expect(stored.body).to.include({ name: 'Main account', is_active: false, has_webhook_secret: true });
    await ui.check('connector-edited');

    // Delete asks first, then the list says so.
    await ui.page.getByRole('button', { name: 'Delete', exact: true }).click();
    await confirm.getByRole('button', { name: 'Delete the connector' }).click();
    await ui.page.getByText('Connector “Main account” deleted.').waitFor();
    const gone = await api.get(`/merchants/${tenant.merchant_id}/connectors/${old.id}`, {
      key: tenant.merchant_secret_key,
    });
    expect(gone.status).to.equal(404);
  });
});
