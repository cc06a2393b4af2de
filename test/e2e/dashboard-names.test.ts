/**
 * Names instead of ids, in headless Chromium: payments and orders show customers and connectors by name
 * and are searched by the customer's e-mail; the order history names the Dashboard user who refunded; "Change offer"
 * on a standalone product lists only that product's recurring offers (not another family's) and previews the new
 * price per cycle against the current one before it runs. Screenshots at desktop and 360 px under
 * test-output/dashboard/.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { createSubscription } from '../../domain/subscriptions/subscriptions.creation';
import { networkTransactionIdOf } from '../../domain/subscriptions/subscriptions.first-transaction';
import { createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant, customerInput, uniqueEmail, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { createOffer } from '../helpers/catalog';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { createCustomer, saveCard } from '../helpers/vault';

async function customer(tenant: Tenant, name: string): Promise<{ id: string; email: string }> {
  const email = uniqueEmail(name.split(' ')[0].toLowerCase());
  const res = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput({ email, name }) });
  expect(res.status, res.text).to.equal(201);
  return { id: res.body.data.id, email };
}

async function offerOf(tenant: Tenant, productId: string, name: string, cycle: string, amount: number) {
  const res = await api.post('/offers', {
    key: tenant.merchant_secret_key,
    body: {
      product_id: productId,
      name,
      slug: name.toLowerCase().replace(/\W+/g, '-'),
      billing_cycle: cycle,
      status: 'active',
      is_default: cycle === 'monthly',
      prices: [{ currency: 'USD', amount, is_default: true }],
    },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.data.id as string;
}

/** A subscription to "Pro Monthly" of the standalone product "Pro" (no family), with "Pro Yearly" beside it. */
async function standaloneSubscription(tenant: Tenant) {
  const product = await api.post('/products', {
    key: tenant.merchant_secret_key,
    body: { name: 'Pro', type: 'recurring', status: 'active' },
  });
  expect(product.status, product.text).to.equal(201);
  const monthly = await offerOf(tenant, product.body.data.id, 'Pro Monthly', 'monthly', 999);
  const yearly = await offerOf(tenant, product.body.data.id, 'Pro Yearly', 'yearly', 9990);
  const customerId = await createCustomer(tenant);
  const instrument = await saveCard(tenant, customerId);
  const first = await charge(tenant, {
    payment_method: 'credit_card',
    charge_type: 'payment',
    country: 'US',
    amount: 999,
    currency: 'USD',
    customer_id: customerId,
    payment_instrument_id: instrument.id,
  });
  expect(first.status, first.text).to.equal(201);
  const state = await stack()
    .orm.em.fork()
    .transactional(async (em) =>
      createSubscription(em, {
        transactionId: first.body.data.id,
        offerId: monthly,
        paymentInstrumentId: instrument.id,
        at: new Date(),
        initialNetworkTransactionId: await networkTransactionIdOf(em, first.body.data.id),
      }),
    );
  await startSubscriptionWorkflow(stack().api.deps.temporal.client, state);
  return { subscriptionId: state.subscriptionId, yearly };
}

describe('Merchant Dashboard names, search by e-mail, history actors and Change offer in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  const ui = useDashboardBrowser('none');
  let tenant: Tenant;

  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
  });

  async function signedIn(forTenant: Tenant): Promise<{ page: Page; email: string }> {
    const owner = await createMerchantUser(forTenant.organization_id, [forTenant.merchant_id], { role: 'owner' });
    const page = await ui.browser.newPage();
    await page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(page, owner.email, owner.password);
    return { page, email: owner.email };
  }

  it('shows customers and connectors by name, finds payments by e-mail, and names the refunding user in the order history', async () => {
    const beatriz = await customer(tenant, 'Beatriz Souza');
    const carlos = await customer(tenant, 'Carlos Lima');
    const paid = await charge(tenant, cardCharge(await cardToken(tenant), { amount: 5000, customer_id: beatriz.id }));
    expect(paid.status, paid.text).to.equal(201);
    await charge(tenant, cardCharge(await cardToken(tenant), { amount: 1500, customer_id: carlos.id }));
    const { page, email } = await signedIn(tenant);

    await page.goto(`${ui.browser.base}/payments`);
    const table = page.getByRole('table', { name: 'Payments' });
    await table.getByText('Beatriz Souza').waitFor();
    await table.getByText('Carlos Lima').waitFor();
    expect(await table.getByText(/cust_/).count(), 'no bare customer id in the list').to.equal(0);
    await ui.check('names-payments', page);

    // Search by e-mail, typed in another case.
    await page.getByLabel('Customer or reference').fill(beatriz.email.toUpperCase());
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((url) => url.search.includes('customer='));
    await page.waitForLoadState('networkidle');
    await table.getByText('Beatriz Souza').waitFor();
    expect(await table.getByText('Carlos Lima').count()).to.equal(0);
    await page.getByLabel('Customer or reference').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No payments match these filters.').waitFor();

    // The payment's page: the customer by name, the attempt's connector by name.
    await page.goto(`${ui.browser.base}/payments/${paid.body.data.id}`);
    await page.getByRole('heading', { name: '$50.00 payment' }).waitFor();
    await page.getByText('Connector provider_a #1', { exact: false }).waitFor();
    expect(await page.locator('.facts').textContent()).to.include('Beatriz Souza');

    // A refund by this user, then the order's history says who, not "by api".
    await page.getByLabel('Refund amount (USD)').fill('5');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.getByRole('button', { name: 'Refund $5.00' }).click();
    await page
      .getByRole('status')
      .getByText(/Refund(ed)? (of )?\$5\.00/)
      .waitFor();
    await page.goto(`${ui.browser.base}/orders/${paid.body.data.order_id}`);
    const history = page.locator('section[aria-labelledby="history"]');
    await history.getByText(`by Mia Merchant (${email})`, { exact: false }).first().waitFor();
    expect(await history.textContent()).to.not.match(/by api\b/);
    expect(await page.locator('.facts').textContent()).to.include('Beatriz Souza');
    await ui.check('names-order-history', page);

    // Orders are searched by e-mail too.
    await page.goto(`${ui.browser.base}/orders`);
    await page.getByLabel('Customer').fill(carlos.email);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((url) => url.search.includes('customer='));
    await page.waitForLoadState('networkidle');
    const orders = page.getByRole('table', { name: 'Orders' });
    await orders.getByText('Carlos Lima').waitFor();
    expect(await orders.getByText('Beatriz Souza').count()).to.equal(0);

    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${ui.browser.base}/payments`);
    await page.getByRole('table', { name: 'Payments' }).getByText('Beatriz Souza').waitFor();
    await ui.check('names-payments-360px', page);
    await page.setViewportSize({ width: 1200, height: 800 });
    await page.close();
  });

  it("Change offer on a standalone product lists only that product's recurring offers and previews the change", async () => {
    const { subscriptionId, yearly } = await standaloneSubscription(tenant);
    // Another family's offer: never a choice.
    await createOffer(tenant.merchant_id, { prices: [{ currency: 'USD', amount: 1999, isDefault: true }] });
    const { page } = await signedIn(tenant);

    await page.goto(`${ui.browser.base}/subscriptions/${subscriptionId}`);
    await page.getByTestId('subscription-status').getByText('Active').waitFor();
    await page.getByRole('button', { name: 'Change offer', exact: true }).click();
    const select = page.getByLabel('New offer');
    await select.waitFor();
    const options = await select.locator('option').allTextContents();
    expect(options).to.deep.equal(['Choose an offer', 'Pro · Pro Yearly (yearly)']);

    await select.selectOption(yearly);
    const preview = page.getByRole('status').filter({ hasText: 'What the customer is charged' });
    await preview.getByText('Nothing is charged now; the new price applies from the next renewal.').waitFor();
    expect(await preview.textContent()).to.include('New price: $99.90 per year (now $9.99 per month).');
    expect(await page.getByRole('alert').count(), 'no "not valid" error in the preview').to.equal(0);
    await ui.check('change-offer-standalone', page);

    await page.getByRole('button', { name: 'Confirm: change offer' }).click();
    await page.getByRole('heading', { name: /Pro Yearly$/ }).waitFor();
    const res = await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${subscriptionId}`, {
      key: tenant.merchant_secret_key,
    });
    expect(res.body.data.current_offer_id).to.equal(yearly);
    await page.close();
  });
});
