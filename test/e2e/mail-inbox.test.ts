/**
 * The local inbox renders: the Mailpit the stack runs (built with its web inbox by
 * scripts/lib/mailpit.ts, the same build `npm start` uses) shows a sent invitation in Chromium — listed with its
 * subject and recipient, and opened with its link. A `go install` build served a blank page here (no UI assets).
 * Screenshots under test-output/dashboard/.
 */
import path from 'node:path';
import { expect } from 'chai';
import { api } from '../helpers/http';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { OUTPUT_DIR, openDashboardBrowser, requireChromium, type DashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant, uniqueEmail } from '../helpers/factories';
import { waitForMail } from '../helpers/mail';
import { stack } from '../helpers/stack';

describe('The local mail inbox in headless Chromium (e2e)', function () {
  this.timeout(120_000);
  let browser: DashboardBrowser;

  before(function () {
    requireChromium(this);
  });
  after(async () => {
    await browser?.close();
  });

  it('lists a sent invitation with its subject and recipient, and opens it', async () => {
    const { uiUrl } = stack().mail;
    expect(uiUrl, 'the stack runs Mailpit (not the .eml fallback)').to.match(/^http:\/\//);
    const tenant = await createTenant();
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'owner' });
    const { access_token: token } = await signIn('merchant', owner);
    const email = uniqueEmail('inbox-invitee');
    const invited = await api.post('/merchant/members', {
      headers: bearer(token as string, { 'x-merchant-id': tenant.merchant_id }),
      body: { email, role: 'viewer', name: 'Ines Inbox' },
    });
    expect(invited.status, invited.text).to.equal(201);
    const [mail] = await waitForMail(email);

    browser = await openDashboardBrowser();
    const page = await browser.newPage();
    await page.goto(uiUrl);
    // The message list: the app's script and styles loaded (a blank page has neither) and the message is listed.
    const listed = page.getByRole('link').filter({ hasText: mail.subject }).first();
    await listed.waitFor();
    expect(await listed.textContent()).to.include(email);
    await page.screenshot({ path: path.join(OUTPUT_DIR, 'mail-inbox.png'), fullPage: true });

    await listed.click();
    await page.getByText(mail.subject).first().waitFor();
    // A text-only message is shown as text: the invitation link is there.
    await page.locator('.text-view', { hasText: '/dashboard/accept-invitation?token=' }).waitFor();
    await page.screenshot({ path: path.join(OUTPUT_DIR, 'mail-invitation.png'), fullPage: true });
  });
});
