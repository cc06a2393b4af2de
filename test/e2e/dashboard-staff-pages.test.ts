/**
 * The Dashboard pages staff look for, in headless Chromium (playwright-core): API keys (issue shows the key once, with
 * full access or only the scopes chosen; the list only its prefix and last four, its scope and who created it by name;
 * roll keeps scopes and expiry, revoke after a confirmation, viewers only read), Activity naming people, Customers
 * (search by e-mail or name; payments,
 * subscriptions and saved cards), Catalog (products → offers → prices, "copy a payment link" opening a checkout
 * session for a price) and sign-in choosing among several accounts. Screenshots under test-output/dashboard/,
 * axe-core with no serious violation.
 */
import { expect } from 'chai';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant, customerInput, uniqueEmail, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { cascade, charge } from '../helpers/transactions';
import { saveCard } from '../helpers/vault';

const FULL_KEY = /(sk|pk)_live_mer_[0-9A-Za-z]{32}/;

async function keysOf(tenant: Tenant): Promise<any[]> {
  const res = await api.get(`/merchants/${tenant.merchant_id}/api-keys`, { key: tenant.organization_secret_key });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

describe('Merchant Dashboard pages staff look for, in headless Chromium (e2e)', function () {
  this.timeout(180_000);
  const ui = useDashboardBrowser('test');

  it('API keys: an owner issues a key shown once, sees prefix and last four with its creator by name, rolls it (scopes and expiry kept) and revokes it after confirming', async () => {
    const tenant = await createTenant();
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
    await ui.page.getByRole('link', { name: 'API keys' }).click();
    await ui.page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();

    const issue = ui.page.getByRole('form', { name: 'Issue a key' });
    await issue.getByLabel('Name').fill('Order server');
    await issue.getByLabel('Expires in (days)').fill('30');
    await issue.getByRole('button', { name: 'Issue key' }).click();
    const shown = ui.page.getByRole('status').filter({ hasText: 'shown only now' });
    const issued = (await shown.locator('code').textContent()) ?? '';
    expect(issued).to.match(FULL_KEY);

    const minted = (await keysOf(tenant)).find((key) => key.name === 'Order server');
    const row = ui.page.locator(`tr[data-key="${minted.id}"]`);
    await row.getByText(`${minted.prefix}…${minted.last_four}`).waitFor();
    await row.getByText('Mia Merchant').waitFor();
    await row.getByText('Never').waitFor();
    // The list never carries a whole key, and the page forgets the shown key once it is dismissed.
    await ui.page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await ui.page.content()).not.to.match(FULL_KEY);

    await row.getByRole('button', { name: 'Roll' }).click();
    const roll = ui.page.getByRole('form', { name: 'Roll Order server' });
    await roll.getByLabel('The old key keeps working for (hours)').fill('0');
    await roll.getByRole('button', { name: 'Roll key' }).click();
    const rolledKey =
      (await ui.page.getByRole('status').filter({ hasText: 'shown only now' }).locator('code').textContent()) ?? '';
    expect(rolledKey).to.match(FULL_KEY).and.not.to.equal(issued);
    const rolled = (await keysOf(tenant)).find((key) => key.name === 'Order server' && key.status === 'active');
    expect(rolled.id).not.to.equal(minted.id);
    expect(rolled.scopes).to.deep.equal(minted.scopes);
    expect(rolled.expires_at).to.equal(minted.expires_at);
    await ui.page.getByRole('button', { name: 'I have copied it' }).click();

    const newRow = ui.page.locator(`tr[data-key="${rolled.id}"]`);
    await newRow.getByRole('button', { name: 'Revoke' }).click();
    await ui.page.getByText('Revoke Order server?', { exact: false }).waitFor();
    await ui.page.getByRole('button', { name: 'Revoke key' }).click();
    await newRow.getByText('Revoked').waitFor();
    expect((await keysOf(tenant)).find((key) => key.id === rolled.id).status).to.equal('revoked');
    await ui.check('api-keys');
  });

  it('API keys: an owner issues a key with full access by default or only the scopes chosen, and the list shows each key’s scope', async () => {
    const tenant = await createTenant();
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
    await ui.page.getByRole('link', { name: 'API keys' }).click();
    const issue = ui.page.getByRole('form', { name: 'Issue a key' });
    expect(await issue.getByLabel('Full access (every scope)').isChecked()).to.equal(true);
    await issue.getByLabel('Name').fill('Order server');
    await issue.getByRole('button', { name: 'Issue key' }).click();
    await ui.page.getByRole('button', { name: 'I have copied it' }).click();

    await issue.getByLabel('Name').fill('Reporting');
    await issue.getByLabel('Only the scopes chosen').check();
    await issue.getByRole('group', { name: 'Customers' }).getByLabel('Read').check();
    await issue.getByRole('group', { name: 'Transactions' }).getByLabel('Read').check();
    await issue.getByRole('button', { name: 'Issue key' }).click();
    await ui.page.getByRole('button', { name: 'I have copied it' }).click();

    const keys = await keysOf(tenant);
    const full = keys.find((key) => key.name === 'Order server');
    const narrow = keys.find((key) => key.name === 'Reporting');
    expect(full.scopes).to.include.members(['customers:write', 'routing:write', 'webhooks:read']);
    expect(narrow.scopes).to.have.members(['customers:read', 'transactions:read']);
    await ui.page.locator(`tr[data-key="${full.id}"]`).getByText('Full access').waitFor();
    await ui.page.locator(`tr[data-key="${narrow.id}"]`).getByText('customers:read, transactions:read').waitFor();
    await ui.check('api-keys-scopes');
  });

  it('API keys and Activity for a viewer: the list reads, nothing can be issued, and Activity names the member who issued a key', async () => {
    const tenant = await createTenant();
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const viewer = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'viewer' });
    const session = await signIn('merchant', owner);
    const minted = await api.post('/merchant/api-keys', {
      headers: bearer(session.access_token, { 'x-merchant-id': tenant.merchant_id }),
      body: { name: 'Reporting', kind: 'secret', scopes: ['transactions:read'] },
    });
    expect(minted.status, minted.text).to.equal(201);

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, viewer.email, viewer.password);
    await ui.page.getByRole('link', { name: 'API keys' }).click();
    const row = ui.page.locator(`tr[data-key="${minted.body.id}"]`);
    await row.getByText('Mia Merchant').waitFor();
    await row.getByText('transactions:read').waitFor();
    expect(await ui.page.getByRole('form', { name: 'Issue a key' }).count()).to.equal(0);
    expect(await row.getByRole('button', { name: 'Revoke' }).count()).to.equal(0);

    await ui.page.getByRole('link', { name: 'Activity' }).click();
    const first = ui.page.locator('tr[data-activity]').first();
    await first.getByText('Mia Merchant').waitFor();
    expect(await first.textContent()).not.to.include(owner.id);
    await ui.check('activity-names');
  });

  it('Customers: staff find a customer by part of the name or e-mail and see their payments, subscriptions and saved cards', async () => {
    const tenant = await createTenant();
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const email = uniqueEmail('grace');
    const created = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ email, name: 'Grace Hopper' }),
    });
    expect(created.status, created.text).to.equal(201);
    const customerId = created.body.data.id as string;
    await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput({ name: 'Alan Turing' }) });
    await cascade(tenant, ['provider_a']);
    const instrument = await saveCard(tenant, customerId);
    const paid = await charge(tenant, {
      payment_method: 'credit_card',
      charge_type: 'payment',
      country: 'US',
      amount: 4990,
      currency: 'USD',
      customer_id: customerId,
      payment_instrument_id: instrument.id,
    });
    expect(paid.status, paid.text).to.equal(201);

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
    await ui.page.getByRole('link', { name: 'Customers' }).click();
    await ui.page.getByRole('heading', { name: 'Customers', exact: true }).waitFor();
    await ui.page.getByLabel('Search by e-mail or name').fill('hopper');
    await ui.page.getByRole('button', { name: 'Search' }).click();
    await ui.page.locator('tr[data-customer]').first().waitFor();
    expect(await ui.page.locator('tr[data-customer]').count()).to.equal(1);
    await ui.page.getByLabel('Search by e-mail or name').fill(email.slice(0, 12).toUpperCase());
    await ui.page.getByRole('button', { name: 'Search' }).click();
    await ui.page.locator(`tr[data-customer="${customerId}"]`).waitFor();
    await ui.page.getByRole('link', { name: 'Grace Hopper' }).click();

    await ui.page.getByRole('heading', { name: 'Grace Hopper' }).waitFor();
    const payments = ui.page.getByRole('region', { name: 'Payments' });
    await payments.getByText('$49.90').waitFor();
    await ui.page.getByRole('region', { name: 'Saved cards' }).getByText('Visa •••• 4242').waitFor();
    await ui.page.getByText('No subscriptions').waitFor();
    await ui.check('customer-detail');
  });

  it('Catalog: products lead to offers and prices; "Copy a payment link" opens a checkout session for the price and gives its URL', async () => {
    const tenant = await createTenant();
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const product = await api.post('/products', {
      key: tenant.merchant_secret_key,
      body: { name: 'Coffee beans', type: 'one_time', status: 'active' },
    });
    expect(product.status, product.text).to.equal(201);
    const offer = await api.post('/offers', {
      key: tenant.merchant_secret_key,
      body: {
        product_id: product.body.data.id,
        name: 'One bag',
        slug: 'one-bag',
        billing_cycle: 'none',
        status: 'active',
        is_default: true,
        prices: [{ currency: 'BRL', amount: 4990, is_default: true }],
      },
    });
    expect(offer.status, offer.text).to.equal(201);
    const buyer = uniqueEmail('buyer');
    const customer = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ email: buyer }),
    });
    expect(customer.status, customer.text).to.equal(201);

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
    await ui.page.getByRole('link', { name: 'Catalog' }).click();
    await ui.page.getByRole('heading', { name: 'Catalog', exact: true }).waitFor();
    await ui.page.getByRole('link', { name: 'Coffee beans' }).click();
    await ui.page.getByRole('heading', { name: 'Coffee beans' }).waitFor();
    const offerSection = ui.page.getByRole('region', { name: 'One bag' });
    await offerSection.getByText('R$49.90').waitFor();
    await offerSection.getByRole('button', { name: 'Copy a payment link' }).click();
    const link = ui.page.getByRole('form', { name: 'Payment link' });
    await link.getByLabel('Customer e-mail').fill(buyer);
    await link.getByLabel('Public key').fill(tenant.merchant_public_key);
    await link.getByRole('button', { name: 'Create the link' }).click();
    const url = await ui.page.getByLabel('Payment link URL').inputValue();
    expect(url).to.match(/\/checkout\/cks_[0-9A-Za-z]+#key=pk_live_mer_/);
    const sessionId = /\/checkout\/(cks_[0-9A-Za-z]+)/.exec(url)![1];
    const session = await api.get(`/checkout-sessions/${sessionId}`, { key: tenant.merchant_secret_key });
    expect(session.status, session.text).to.equal(200);
    expect(session.body.data.customer_id).to.equal(customer.body.data.id);
    expect(session.body.data.offer_id).to.equal(offer.body.data.id);
    await ui.check('catalog-product');
  });

  it('Connectors name each provider with the real API it speaks (Provider A — Stripe API)', async () => {
    const tenant = await createTenant();
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const [connector] = await cascade(tenant, ['provider_a']);
    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
    await ui.page.getByRole('link', { name: 'Connectors' }).click();
    await ui.page.getByRole('cell', { name: 'Provider A — Stripe API' }).waitFor();
    await ui.page.goto(`${ui.browser.base}/connectors/${connector.id}`);
    await ui.page.locator('dd', { hasText: 'Provider A — Stripe API' }).waitFor();
  });

  it('Sign-in: a person whose e-mail has accounts in two organizations chooses which one to enter', async () => {
    const first = await createTenant();
    const second = await createTenant();
    const email = uniqueEmail('two-orgs');
    await createMerchantUser(first.organization_id, [first.merchant_id], { email });
    const chosen = await createMerchantUser(second.organization_id, [second.merchant_id], { email });

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await ui.page.getByLabel('E-mail').fill(email);
    await ui.page.getByLabel('Password', { exact: true }).fill(chosen.password);
    await ui.page.getByRole('button', { name: 'Sign in' }).click();
    await ui.page.getByRole('heading', { name: 'Choose an account' }).waitFor();
    const choices = ui.page.locator('.choices button');
    expect(await choices.count()).to.equal(2);
    await ui.check('sign-in-choose-account');
    const merchant = await api.get(`/merchants/${second.merchant_id}`, { key: second.organization_secret_key });
    expect(merchant.status, merchant.text).to.equal(200);
    await choices.filter({ hasText: merchant.body.name }).click();
    await ui.page.waitForURL((url) => url.pathname.endsWith('/overview'));
    const session = await ui.page.evaluate(() =>
      (globalThis as any).sessionStorage.getItem('switchyard.dashboard.session'),
    );
    expect(JSON.parse(session).merchantId).to.equal(second.merchant_id);
  });
});
