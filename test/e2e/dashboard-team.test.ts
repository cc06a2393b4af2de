/**
 * The merchant Dashboard's Team page in headless Chromium (playwright-core): an owner invites a colleague, the
 * e-mailed link (read back from the mail catcher) lets the colleague set a password, the owner sees them active and
 * changes their role after confirming; a viewer sees the team read-only. Screenshots at desktop and 360 px under
 * test-output/dashboard/, axe-core with no serious violation.
 */
import { expect } from 'chai';
import { NEW_PASSWORD, createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant, uniqueEmail } from '../helpers/factories';
import { api } from '../helpers/http';
import { rows } from '../helpers/db';
import { waitForMail } from '../helpers/mail';

describe('Merchant Dashboard Team page in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  const ui = useDashboardBrowser('test');

  it('an owner invites a colleague, who accepts from the e-mail; the owner confirms a role change and sees it', async () => {
    const tenant = await createTenant();
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'owner' });
    const colleague = uniqueEmail('colleague');

    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
    await ui.page.getByRole('link', { name: 'Team' }).click();
    await ui.page.getByRole('heading', { name: 'Team', exact: true }).waitFor();
    await ui.page.getByLabel('E-mail').fill(colleague);
    await ui.page.getByLabel('Name (optional)').fill('Cora Colleague');
    await ui.page.getByLabel('Role', { exact: true }).selectOption('admin');
    await ui.page.getByRole('button', { name: 'Send invitation' }).click();
    await ui.page.getByText(`Invitation sent to ${colleague} as admin.`).waitFor();
    const row = ui.page.locator(`tr[data-member="${colleague}"]`);
    await row.getByText('Invited').waitFor();
    await ui.check('team');

    // The colleague accepts from the e-mailed link in another tab.
    const [mail] = await waitForMail(colleague);
    const link = /https?:\/\/\S+\/dashboard\/accept-invitation\?\S+/.exec(mail.text)![0];
    const other = await ui.browser.newPage();
    await other.goto(link);
    await other.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await other.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await other.getByRole('button', { name: 'Accept and set the password' }).click();
    await other.getByText(`Welcome! Sign in as ${colleague}.`).waitFor();
    await other.close();

    await ui.page.reload();
    await row.getByText('Active').waitFor();
    // A role change runs only after its confirmation.
    await row.getByLabel(`Role of ${colleague}`).selectOption('viewer');
    await row.getByText('Make Cora Colleague viewer?').waitFor();
    const stored = async () =>
      (
        await rows(
          'select m.role from merchant_members m join merchant_users u on u.id = m.user_id where u.email = ? and m.merchant_id = ?',
          [colleague, tenant.merchant_id],
        )
      )[0].role;
    expect(await stored()).to.equal('admin');
    await row.getByRole('button', { name: 'Change role' }).click();
    await ui.page.getByText('Cora Colleague is now viewer.').waitFor();
    expect(await stored()).to.equal('viewer');

    // The last owner cannot remove themself: the API's refusal is shown, nothing changes.
    const mine = ui.page.locator(`tr[data-member="${owner.email}"]`);
    await mine.getByRole('button', { name: 'Remove' }).click();
    await mine.getByRole('button', { name: 'Remove' }).last().click();
    await mine.getByRole('alert').getByText('A merchant keeps at least one owner', { exact: false }).waitFor();
    // The browser logs the refused request; that refusal is the point here, nothing else may be logged.
    expect(ui.browser.problems).to.deep.equal([
      'Failed to load resource: the server responded with a status of 409 (Conflict)',
    ]);
    ui.browser.problems.length = 0;
    await ui.check('team-last-owner');

    await ui.page.setViewportSize({ width: 360, height: 740 });
    await ui.page.reload();
    await row.getByText('Active').waitFor();
    // What sticks out, named in the failure: the elements whose right edge passes the viewport.
    const wide = await ui.page.evaluate<string[]>(
      `[...document.querySelectorAll('body *')].filter((e) => !e.closest('.table-wrap') && e.getBoundingClientRect().right > 361).slice(0, 8).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`,
    );
    expect(await ui.page.evaluate<number>('document.documentElement.scrollWidth'), wide.join('; ')).to.be.at.most(360);
    await ui.check('360px-team');
  });

  it('a viewer sees the team read-only: no invite form, no change controls', async () => {
    const tenant = await createTenant();
    await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'owner' });
    const viewer = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'viewer' });
    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, viewer.email, viewer.password);
    await ui.page.goto(`${ui.browser.base}/team`);
    await ui.page.getByText('You have view-only access.', { exact: false }).waitFor();
    await ui.page.locator(`tr[data-member="${viewer.email}"]`).waitFor();
    expect(await ui.page.getByRole('button', { name: 'Send invitation' }).count()).to.equal(0);
    expect(await ui.page.getByRole('button', { name: 'Remove' }).count()).to.equal(0);
    await ui.check('team-viewer');
    const refused = await api.get('/merchant/members', { headers: {} });
    expect(refused.status).to.equal(401);
  });
});
