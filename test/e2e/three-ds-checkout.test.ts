/**
 * End to end in headless Chromium: a buyer pays the hosted checkout with a card the issuer challenges (3-D Secure).
 * The page sends them to the bank's challenge page and the challenge brings them back to the checkout's result:
 * paid when they pass it (a subscription's first payment too), failed with the reason when they fail it or never
 * finish it. The deadline of a challenge nobody finishes (THREE_DS_CHALLENGE_MINUTES, 15 on the shared stack) is
 * reached on Temporal's time-skipping server, running the very wait the charge started, with the charge's own
 * input. Screenshots go to test-output/checkout-3ds-*.png.
 */
import { expect } from 'chai';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Page } from 'playwright-core';
import { api } from '../helpers/http';
import { createTenant, giveWebsite, type Tenant } from '../helpers/factories';
import { createSession, storedStatus } from '../helpers/checkout';
import { createOffer, type OfferFixture } from '../helpers/catalog';
import { rows } from '../helpers/connectors';
import { openDashboardBrowser, requireChromium, type DashboardBrowser } from '../helpers/dashboard-browser';
import { stack } from '../helpers/stack';
import { stackWorker, useTimeSkipping } from '../helpers/time-skipping';
import { cascade } from '../helpers/transactions';
import { NEXT_YEAR } from '../helpers/vault';
import { transactionAuthenticationWorkflow } from '../../workflows/transaction-authentication';
import { authenticationWorkflowId, type AuthenticationInput } from '../../workflows/transaction.shared';

const CHALLENGE = '4000000000003220';
const OUTPUT_DIR = path.join(__dirname, '..', '..', 'test-output');

describe('Hosted checkout runs the 3-D Secure challenge in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  const server = useTimeSkipping();
  let browser: DashboardBrowser;
  let tenant: Tenant;

  before(async function () {
    requireChromium(this);
    tenant = await createTenant();
    await giveWebsite(tenant);
    await cascade(tenant, ['provider_a'], { webhooks: false });
    browser = await openDashboardBrowser();
  });
  after(async () => browser?.close());

  async function checkoutFor(fixture: OfferFixture): Promise<string> {
    const { offer } = await createOffer(tenant.merchant_id, fixture);
    return (await createSession(tenant, { offer_id: offer.id, selected_currency: 'USD' })).id;
  }

  /** Opens the checkout link, pays with the challenge card and waits on the bank's challenge page. */
  async function payIntoChallenge(checkoutId: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${stack().url}/checkout/${checkoutId}#key=${tenant.merchant_public_key}`);
    await page.locator('#total[data-amount]').waitFor();
    const frame = page.frameLocator('iframe');
    await frame.locator('#number').pressSequentially(CHALLENGE, { delay: 10 });
    await frame.locator('#expiry').pressSequentially(`12${String(NEXT_YEAR).slice(2)}`, { delay: 10 });
    await frame.locator('#cvc').pressSequentially('123', { delay: 10 });
    await page.locator('#submit:not([disabled])').click();
    await page.getByRole('heading', { name: 'Sandbox bank: confirm this payment' }).waitFor({ timeout: 60_000 });
    expect(new URL(page.url()).pathname).to.match(/\/_sandbox\/challenge\/pi_/);
    return page;
  }

  /** Back on the checkout the buyer paid from, with the transaction the challenge was for. */
  async function returnedTo(page: Page, checkoutId: string): Promise<string> {
    await page.waitForURL((url) => url.pathname === `/checkout/${checkoutId}`);
    const transactionId = new URL(page.url()).searchParams.get('transaction_id');
    expect(transactionId).to.match(/^tx_/);
    return transactionId!;
  }

  const screenshot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(OUTPUT_DIR, `checkout-3ds-${name}.png`), fullPage: true });

  const read = async (id: string) =>
    (await api.get(`/transactions/${id}`, { key: tenant.merchant_secret_key })).body.data;

  it('a passed challenge returns the buyer to the checkout paid: success view, transaction authorized, authenticated with liability shift', async () => {
    const checkoutId = await checkoutFor({ billingCycle: 'none' });
    const page = await payIntoChallenge(checkoutId);
    await screenshot(page, 'challenge');
    await page.getByRole('button', { name: 'Complete' }).click();
    const transactionId = await returnedTo(page, checkoutId);
    await page.locator('#success-view[data-order-id]:not([hidden])').waitFor({ timeout: 60_000 });
    await screenshot(page, 'paid');
    expect(await page.locator('#success-view').getAttribute('data-transaction-id')).to.equal(transactionId);
    expect(await read(transactionId)).to.include({ status: 'authorized', next_action: null });
    const [attempt] = (await api.get(`/transactions/${transactionId}/attempts`, { key: tenant.merchant_secret_key }))
      .body.data;
    expect(attempt.three_ds).to.include({ status: 'authenticated', liability_shift: true });
    expect(await storedStatus(checkoutId)).to.equal('completed');
  });

  it('a failed challenge returns the buyer to the checkout failed authentication_failed, with the reason and the form to pay again', async () => {
    const checkoutId = await checkoutFor({ billingCycle: 'none' });
    const page = await payIntoChallenge(checkoutId);
    await page.getByRole('button', { name: 'Fail' }).click();
    const transactionId = await returnedTo(page, checkoutId);
    const result = page.locator('#result[data-failure-code="authentication_failed"]:not([hidden])');
    await result.waitFor({ timeout: 60_000 });
    await screenshot(page, 'failed');
    expect(await result.textContent()).to.match(/bank could not verify/i);
    expect(await page.locator('#pay-view').isVisible()).to.equal(true);
    expect(await read(transactionId)).to.include({ status: 'failed', failure_code: 'authentication_failed' });
    expect(await storedStatus(checkoutId)).to.equal('customer_identified');
  });

  it('a challenge left unfinished: back on the checkout the buyer is asked to finish it, and at its deadline the checkout shows failed authentication_abandoned', async () => {
    const checkoutId = await checkoutFor({ billingCycle: 'none' });
    const page = await payIntoChallenge(checkoutId);
    const challengeUrl = page.url();
    await page.goBack();
    const waiting = page.locator('#auth-view:not([hidden])');
    await waiting.waitFor({ timeout: 60_000 });
    expect(await page.locator('#auth-link').getAttribute('href')).to.equal(challengeUrl);
    await screenshot(page, 'waiting');

    // The stack's wait for this charge is replaced by the same workflow, with its own input, on a clock that skips.
    const [{ id: transactionId }] = await rows('select id from transactions where checkout_session_id = ?', [
      checkoutId,
    ]);
    const running = stack().api.deps.temporal.client.workflow.getHandle(authenticationWorkflowId(transactionId));
    const started = (await running.fetchHistory()).events![0].workflowExecutionStartedEventAttributes!;
    const input = defaultPayloadConverter.fromPayload<AuthenticationInput>(started.input!.payloads![0]);
    await running.terminate('e2e: the deadline is reached on the time-skipping server');
    const taskQueue = 'e2e-three-ds-abandoned';
    const expiresAt = new Date(Number(await server.env.currentTimeMs()) + 15 * 60_000).toISOString();
    const handle = await server.env.client.workflow.start(transactionAuthenticationWorkflow, {
      workflowId: `e2e-${authenticationWorkflowId(transactionId)}`,
      taskQueue,
      args: [{ ...input, expiresAt }],
    });
    const worker = await stackWorker(server.env, taskQueue);
    expect(await worker.runUntil(handle.result())).to.deep.equal({ transactionId, status: 'failed' });

    const result = page.locator('#result[data-failure-code="authentication_abandoned"]:not([hidden])');
    await result.waitFor({ timeout: 60_000 });
    await screenshot(page, 'abandoned');
    expect(await result.textContent()).to.match(/not completed in time/i);
    expect(await page.locator('#auth-view').isHidden()).to.equal(true);
    expect(await read(transactionId)).to.include({ status: 'failed', failure_code: 'authentication_abandoned' });
  });

  it("a subscription's first payment can be challenged: passed, the buyer sees the subscription started", async () => {
    const checkoutId = await checkoutFor({ billingCycle: 'monthly' });
    const page = await payIntoChallenge(checkoutId);
    await page.getByRole('button', { name: 'Complete' }).click();
    const transactionId = await returnedTo(page, checkoutId);
    await page.locator('#success-view[data-subscription-id]:not([hidden])').waitFor({ timeout: 60_000 });
    await screenshot(page, 'subscription');
    const subscriptionId = await page.locator('#success-view').getAttribute('data-subscription-id');
    expect(await read(transactionId)).to.include({ status: 'authorized', subscription_id: subscriptionId });
    const sub = await api.get(`/merchants/${tenant.merchant_id}/subscriptions/${subscriptionId}`, {
      key: tenant.merchant_secret_key,
    });
    expect(sub.body.data).to.include({ status: 'active', cycles_completed: 1 });
  });
});
