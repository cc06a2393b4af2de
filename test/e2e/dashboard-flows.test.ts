/**
 * The merchant Dashboard's account and switching flows in headless Chromium, from the e-mails the service really
 * sends (read back from the test stack's mail catcher): forgot password → the e-mailed reset link → sign in with
 * the new password; an invitation's e-mailed link → the new user sets a password and signs in; the merchant
 * switcher between two memberships (the other merchant's data, and every API call carrying its x-merchant-id);
 * changing a subscription's payment method (seen in the page and through the API); and every page fitting 360 px.
 * Each new page is screenshot under test-output/dashboard/ and checked by axe-core (0 serious violations).
 */
import { expect } from 'chai';
import type { Request } from 'playwright-core';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { NEW_PASSWORD, createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { addMerchant, createTenant, uniqueEmail } from '../helpers/factories';
import { api } from '../helpers/http';
import { waitForMail, type CaughtMail } from '../helpers/mail';
import { createMerchant } from '../helpers/merchants';
import { stack } from '../helpers/stack';
import { subscribed } from '../helpers/subscriptions';
import { CARDS, saveCard } from '../helpers/vault';
import { configsPath, createConfig } from '../helpers/webhooks';

/** The Dashboard link an e-mail carries (the whole URL, as a person would click it). */
function linkIn(mail: CaughtMail, page: string): string {
  const found = new RegExp(`https?://\\S+/dashboard/${page}\\?\\S+`).exec(mail.text);
  if (!found) throw new Error(`no /dashboard/${page} link in: ${mail.text}`);
  return found[0];
}

describe('Merchant Dashboard account flows and merchant switching in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  const ui = useDashboardBrowser('test');

  const fitsWidth = async (name: string) =>
    expect(
      await ui.page.evaluate<number>('document.documentElement.scrollWidth'),
      `${name} scrolls sideways`,
    ).to.be.at.most(360);

  it('forgot password: the e-mailed link sets a new password, which signs in (the old one no longer does)', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await ui.page.getByRole('link', { name: 'Forgot your password?' }).click();
    await ui.page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await ui.check('forgot-password');
    await ui.page.getByLabel('E-mail').fill(user.email);
    await ui.page.getByRole('button', { name: 'Send the link' }).click();
    await ui.page.getByText('Check your inbox for the link.').waitFor();
    await ui.check('forgot-password-sent');

    const [mail] = await waitForMail(user.email);
    const link = linkIn(mail, 'reset-password');
    expect(new URL(link).searchParams.get('dashboard')).to.equal('merchant');
    await ui.page.goto(link);
    await ui.page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await ui.check('reset-password');
    await ui.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await ui.page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await ui.page.getByRole('button', { name: 'Set the password' }).click();
    await ui.page.getByText('Your password is set.').waitFor();
    await ui.page.getByRole('link', { name: 'Sign in' }).click();
    await signInThroughPage(ui.page, user.email, NEW_PASSWORD);
    await ui.page.getByRole('heading', { name: 'Overview' }).waitFor();

    const old = await api.post('/auth/merchant/login', { body: { email: user.email, password: user.password } });
    expect(old.status, old.text).to.equal(401);
    // The link works once: opened again, the page says so instead of setting a password.
    await ui.page.goto(link);
    await ui.page.getByLabel('New password', { exact: true }).fill(`${NEW_PASSWORD}x`);
    await ui.page.getByLabel('Repeat the new password').fill(`${NEW_PASSWORD}x`);
    await ui.page.getByRole('button', { name: 'Set the password' }).click();
    await ui.page.getByRole('alert').waitFor();
    expect(await ui.page.getByText('Your password is set.').count()).to.equal(0);
  });

  it('accepting an invitation from the e-mailed link: the new user names themself, sets a password and signs in to the merchant', async () => {
    const tenant = await createTenant();
    const email = uniqueEmail('invitee');
    const merchantName = `Invited Shop ${email.split('.')[1]}`;
    const merchant = await createMerchant(tenant, { primary_email: email, name: merchantName });

    const [mail] = await waitForMail(email);
    await ui.page.goto(linkIn(mail, 'accept-invitation'));
    await ui.page.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
    await ui.page.getByText(`invited ${email} to a merchant of`).waitFor();
    await ui.check('accept-invitation');
    await ui.page.getByLabel('Your name (optional)').fill('Ivy Invitee');
    await ui.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await ui.page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await ui.page.getByRole('button', { name: 'Accept and set the password' }).click();
    await ui.page.getByText(`Welcome! Sign in as ${email}.`).waitFor();
    await ui.check('accept-invitation-done');
    await ui.page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await signInThroughPage(ui.page, email, NEW_PASSWORD);
    await ui.page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await ui.page.locator('#sidebar').textContent()).to.include(merchantName);

    const login = await api.post('/auth/merchant/login', { body: { email, password: NEW_PASSWORD } });
    expect(login.status, login.text).to.equal(200);
    expect(login.body.user.name).to.equal('Ivy Invitee');
    const membership = login.body.user.merchants.find((m: { merchant_id: string }) => m.merchant_id === merchant.id);
    expect(membership?.status).to.equal('active');
  });

  it('an invitation to a person with an account asks for their password; a declined one is used up', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    await createMerchant(tenant, { primary_email: user.email, name: `Second shop ${user.id}` });
    await ui.page.goto(linkIn((await waitForMail(user.email))[0], 'accept-invitation'));
    await ui.page.getByLabel('Your current password').fill(user.password);
    expect(await ui.page.getByLabel('New password', { exact: true }).count()).to.equal(0);
    await ui.check('accept-invitation-existing-user');
    await ui.page.getByRole('button', { name: 'Accept the invitation' }).click();
    await ui.page.getByText(`Welcome! Sign in as ${user.email}.`).waitFor();
    await ui.page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await signInThroughPage(ui.page, user.email, user.password);
    await ui.page
      .getByLabel('Merchant', { exact: true })
      .locator('option', { hasText: `Second shop ${user.id}` })
      .waitFor({ state: 'attached' });

    const email = uniqueEmail('decliner');
    await createMerchant(tenant, { primary_email: email });
    const link = linkIn((await waitForMail(email))[0], 'accept-invitation');
    await ui.page.goto(link);
    await ui.page.getByRole('button', { name: 'Decline the invitation' }).click();
    await ui.page.getByText('You declined the invitation').waitFor();
    const token = new URL(link).searchParams.get('token')!;
    expect((await api.get('/invitations/verify', { query: { token } })).body.valid).to.equal(false);
    await ui.page.goto(link);
    await ui.page.getByText('This invitation is invalid, expired or already used.').waitFor();
    expect(await ui.page.getByRole('button', { name: /Accept/ }).count()).to.equal(0);
    await ui.check('accept-invitation-used');
  });

  it('the merchant switcher shows the other merchant’s data, and every API call then carries its x-merchant-id', async () => {
    const tenant = await createTenant();
    const second = await addMerchant(tenant);
    await createConfig(tenant, { url: 'https://first.example.com/hooks' });
    const other = await api.post(configsPath(second.merchantId), {
      key: second.merchantKey,
      body: { url: 'https://second.example.com/hooks' },
    });
    expect(other.status, other.text).to.equal(201);
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id, second.merchantId]);

    const sent: Promise<{ url: string; merchant: string | undefined }>[] = [];
    const record = (request: Request) => {
      if (request.url().includes('/api/v1/merchant/'))
        sent.push(request.allHeaders().then((headers) => ({ url: request.url(), merchant: headers['x-merchant-id'] })));
    };
    ui.page.on('request', record);

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, user.email, user.password);
    await ui.page.getByRole('heading', { name: 'Overview' }).waitFor();
    const switcher = ui.page.getByLabel('Merchant', { exact: true });
    const showWebhooksOf = async (merchantId: string, shown: string, hidden: string) => {
      if ((await switcher.inputValue()) !== merchantId) {
        await switcher.selectOption(merchantId);
        await ui.page.getByRole('heading', { name: 'Overview' }).waitFor();
      }
      sent.length = 0;
      await ui.page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).click();
      const endpoints = ui.page.getByRole('region', { name: 'Webhook endpoints' });
      await endpoints.getByText(shown).waitFor();
      expect(await endpoints.getByText(hidden).count()).to.equal(0);
      const calls = await Promise.all(sent);
      expect(calls.length).to.be.greaterThan(0);
      expect(calls.filter((c) => c.merchant !== merchantId)).to.deep.equal([]);
    };

    await showWebhooksOf(tenant.merchant_id, 'https://first.example.com/hooks', 'https://second.example.com/hooks');
    await showWebhooksOf(second.merchantId, 'https://second.example.com/hooks', 'https://first.example.com/hooks');
    expect(await switcher.inputValue()).to.equal(second.merchantId);
    await ui.check('merchant-switcher');
    // The choice survives a reload of the tab.
    await ui.page.reload();
    await ui.page
      .getByRole('region', { name: 'Webhook endpoints' })
      .getByText('https://second.example.com/hooks')
      .waitFor();
    await showWebhooksOf(tenant.merchant_id, 'https://first.example.com/hooks', 'https://second.example.com/hooks');
    ui.page.off('request', record);
  });

  it('changing a subscription’s payment method from its page: the new card shows in the page and in the API', async () => {
    const sub = await subscribed(new Date());
    await startSubscriptionWorkflow(stack().api.deps.temporal.client, sub.state);
    const { tenant } = sub;
    const subscriptionId = sub.state.subscriptionId;
    const mastercard = await saveCard(tenant, sub.customerId, CARDS.mastercard);
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);

    await ui.page.goto(`${ui.browser.base}/subscriptions/${subscriptionId}`);
    await signInThroughPage(ui.page, user.email, user.password);
    await ui.page.getByTestId('subscription-status').getByText('Active').waitFor();
    const paymentMethod = ui.page.getByTestId('payment-method');
    await paymentMethod.getByText('Visa ending 4242').waitFor();

    await ui.page.getByRole('button', { name: 'Change payment method', exact: true }).click();
    await ui.page.getByLabel('Card to bill from now on').selectOption(mastercard.id);
    await ui.check('subscription-change-payment-method');
    await ui.page.getByRole('button', { name: 'Confirm: change payment method' }).click();
    await ui.page.getByRole('status').filter({ hasText: 'The payment method changed.' }).waitFor();
    await paymentMethod.getByText('Mastercard ending 4444').waitFor();
    expect(await paymentMethod.textContent()).to.include(mastercard.id);

    const read = await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${subscriptionId}`, {
      key: tenant.merchant_secret_key,
    });
    expect(read.status, read.text).to.equal(200);
    expect(read.body.data.payment_instrument_id).to.equal(mastercard.id);
    // And after a reload the page reads it back from the API.
    await ui.page.reload();
    await ui.page.getByTestId('payment-method').getByText('Mastercard ending 4444').waitFor();
  });

  it('every page fits 360 px: no sideways scrolling of the page itself, and no serious axe violation', async () => {
    const sub = await subscribed(new Date());
    const { tenant } = sub;
    await createConfig(tenant, { url: 'https://hooks.example.com/a-rather-long-path/for-a-narrow-screen' });
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    await ui.page.setViewportSize({ width: 360, height: 740 });

    const at = async (path: string, heading: string | RegExp, name: string) => {
      await ui.page.goto(`${ui.browser.base}${path}`);
      await ui.page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
      await ui.check(`360px-${name}`);
      await fitsWidth(name);
    };
    /** The path of the first item the list on screen links to. */
    const firstLink = async (prefix: string) =>
      (await ui.page.locator(`a[href^="/dashboard/${prefix}"]`).first().getAttribute('href'))!.slice(
        '/dashboard'.length,
      );

    await at('/sign-in', 'Sign in to your merchant Dashboard', 'sign-in');
    await at('/forgot-password', 'Reset your password', 'forgot-password');
    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, user.email, user.password);
    await at('/subscriptions', 'Subscriptions', 'subscriptions');
    await at(`/subscriptions/${sub.state.subscriptionId}`, /·/, 'subscription');
    await at('/payments', 'Payments', 'payments');
    await at(await firstLink('payments/tx_'), /payment$/, 'payment');
    await at('/orders', 'Orders', 'orders');
    await at(await firstLink('orders/ord_'), /order$/, 'order');
    await at('/webhooks', 'Webhooks', 'webhooks');
    await at('/connectors', 'Connectors', 'connectors');
    await at(await firstLink('connectors/conn_'), 'Received webhooks', 'connector');
    await at('/connectors/new', 'Add a connector', 'connector-new');
    await at('/account', 'Change your password', 'change-password');
  });
});
