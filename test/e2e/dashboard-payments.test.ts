/**
 * Money actions in the merchant Dashboard (headless Chromium): capture, void and refund ask first, naming the amount,
 * and run only when confirmed; after a capture the chip says Captured; a failed payment shows the amount asked for;
 * a refund the provider refuses is shown as failed. Screenshots at desktop and 360 px under test-output/dashboard/.
 */
import { expect } from 'chai';
import { createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { CARDS } from '../helpers/vault';

describe('Merchant Dashboard money actions in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  const ui = useDashboardBrowser();
  let tenant: Tenant;

  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'owner' });
    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
  });

  const status = async (id: string) => (await rows('select status from transactions where id = ?', [id]))[0].status;

  it('capture asks with the amount, runs only when confirmed, then the chip says Captured', async () => {
    const held = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false, amount: 2500 }));
    expect(held.status, held.text).to.equal(201);
    const id = held.body.data.id;
    await ui.page.goto(`${ui.browser.base}/payments/${id}`);
    await ui.page.getByRole('heading', { name: '$25.00 payment' }).waitFor();
    await ui.page.getByRole('button', { name: 'Capture', exact: true }).click();
    await ui.page.getByText("Capture $25.00? The customer's card is charged this amount.").waitFor();
    await ui.check('payment-capture-confirm');
    // Asked, not done: "Keep as is" leaves the hold.
    await ui.page.getByRole('button', { name: 'Keep as is' }).click();
    expect(await status(id)).to.equal('pre_authorized');

    await ui.page.getByRole('button', { name: 'Capture', exact: true }).click();
    await ui.page.getByRole('button', { name: 'Capture $25.00' }).click();
    await ui.page.getByText('Captured $25.00.').waitFor();
    await ui.page.locator('.page-header .chip', { hasText: 'Captured' }).waitFor();
    expect(await status(id)).to.equal('authorized');
    await ui.check('payment-captured');
  });

  it('void asks with the held amount before releasing it', async () => {
    const held = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false, amount: 1234 }));
    const id = held.body.data.id;
    await ui.page.goto(`${ui.browser.base}/payments/${id}`);
    await ui.page.getByRole('button', { name: 'Void', exact: true }).click();
    await ui.page.getByText('Void this payment and release the hold of $12.34?', { exact: false }).waitFor();
    expect(await status(id)).to.equal('pre_authorized');
    await ui.page.getByRole('button', { name: 'Void $12.34' }).click();
    await ui.page.getByText('Voided: the hold of $12.34 is released.').waitFor();
    expect(await status(id)).to.equal('voided');
  });

  it('a refund asks with the amount; one the provider refuses is shown as failed, not as requested', async () => {
    const paid = await charge(tenant, cardCharge(await cardToken(tenant), { amount: 5000 }));
    const id = paid.body.data.id;
    await ui.page.goto(`${ui.browser.base}/payments/${id}`);
    // Refund amounts ending in 61 fail at the sandbox.
    await ui.page.getByLabel('Refund amount (USD)').fill('10.61');
    await ui.page.getByRole('button', { name: 'Refund', exact: true }).click();
    await ui.page.getByText('Refund $10.61 to the customer? This cannot be undone.').waitFor();
    expect(await rows('select id from refunds where transaction_id = ?', [id])).to.have.length(0);
    await ui.page.getByRole('button', { name: 'Refund $10.61' }).click();
    await ui.page.getByRole('alert').getByText('The refund of $10.61 failed', { exact: false }).waitFor();
    expect(await ui.page.getByText('Refund requested').count()).to.equal(0);
    await ui.check('payment-refund-failed');

    await ui.page.getByLabel('Refund amount (USD)').fill('5');
    await ui.page.getByRole('button', { name: 'Refund', exact: true }).click();
    await ui.page.getByRole('button', { name: 'Refund $5.00' }).click();
    await ui.page
      .getByRole('status')
      .getByText(/Refund(ed)? (of )?\$5\.00/)
      .waitFor();
    const refunds = await rows('select amount, status from refunds where transaction_id = ? order by created_at', [id]);
    expect(refunds.map((r) => Number(r.amount))).to.deep.equal([1061, 500]);
    expect(refunds[0].status).to.equal('failed');
  });

  it('a declined payment shows the amount asked for in the list and on its page, not $0.00', async () => {
    const declined = await charge(tenant, cardCharge(await cardToken(tenant, CARDS.doNotHonor), { amount: 4990 }));
    expect(declined.status, declined.text).to.equal(201);
    expect(declined.body.data.status).to.equal('failed');
    await ui.page.goto(`${ui.browser.base}/payments/${declined.body.data.id}`);
    await ui.page.getByRole('heading', { name: '$49.90 payment' }).waitFor();
    await ui.page.goto(`${ui.browser.base}/payments?status=failed`);
    await ui.page.getByRole('link', { name: '$49.90' }).waitFor();
    await ui.check('payments-failed');

    await ui.page.setViewportSize({ width: 360, height: 740 });
    await ui.page.goto(`${ui.browser.base}/payments/${declined.body.data.id}`);
    await ui.page.getByRole('heading', { name: '$49.90 payment' }).waitFor();
    await ui.check('360px-payment');
    await ui.page.setViewportSize({ width: 1200, height: 800 });
  });

  it("a declined payment's reason is its headline: the failure_code in words, with the code and the provider's code", async () => {
    const declined = await charge(tenant, cardCharge(await cardToken(tenant, CARDS.stolen), { amount: 2990 }));
    expect(declined.body.data.status, declined.text).to.equal('failed');
    await ui.page.goto(`${ui.browser.base}/payments/${declined.body.data.id}`);
    const headline = ui.page.locator('.failure-headline');
    await headline.getByText('The card was reported lost or stolen.').waitFor();
    const notice = ui.page.locator('.notice', { has: headline });
    expect(await notice.textContent())
      .to.include('failure_code lost_or_stolen')
      .and.include('provider code stolen_card');
  });
});
