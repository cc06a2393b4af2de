/**
 * The payments and orders lists at 360 px (headless Chromium): each row becomes a card with every field labelled —
 * amount, status, method, customer, date — so nothing is cut off and the page never scrolls sideways (the
 * Customer and Date columns must not be cut off at 390 px). Screenshots under test-output/dashboard/.
 */
import { expect } from 'chai';
import { createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant, type Tenant } from '../helpers/factories';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { CARDS } from '../helpers/vault';

describe('Merchant Dashboard payments list at 360 px in headless Chromium (e2e)', function () {
  this.timeout(240_000);
  const ui = useDashboardBrowser();
  let tenant: Tenant;

  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const paid = await charge(tenant, cardCharge(await cardToken(tenant), { amount: 4990 }));
    expect(paid.body.data.status, paid.text).to.equal('authorized');
    const declined = await charge(tenant, cardCharge(await cardToken(tenant, CARDS.doNotHonor), { amount: 1234 }));
    expect(declined.body.data.status, declined.text).to.equal('failed');
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'viewer' });
    await ui.page.setViewportSize({ width: 360, height: 740 });
    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
  });

  const pageWidth = () => ui.page.evaluate<number[]>('[document.documentElement.scrollWidth, window.innerWidth]');

  /** Every cell of every row lies inside the viewport, with its label shown before it. */
  async function expectCardsInside(labels: string[]) {
    const rows = ui.page.locator('.card-rows tbody tr');
    const count = await rows.count();
    expect(count).to.be.greaterThan(0);
    for (let index = 0; index < count; index += 1) {
      const cells = rows.nth(index).locator('td');
      expect(await cells.evaluateAll((tds) => tds.map((td) => td.getAttribute('data-label')))).to.deep.equal(labels);
      for (let cell = 0; cell < labels.length; cell += 1) {
        const box = (await cells.nth(cell).boundingBox())!;
        expect(box.width, `${labels[cell]} has room`).to.be.greaterThan(100);
        expect(box.x + box.width, `${labels[cell]} ends inside the screen`).to.be.at.most(360);
      }
    }
    expect(await pageWidth()).to.deep.equal([360, 360]);
  }

  it('shows each payment as a card with amount, status, method, customer and date, no sideways scrolling', async () => {
    await ui.page.goto(`${ui.browser.base}/payments`);
    await ui.page.getByRole('link', { name: '$49.90' }).waitFor();
    await ui.page.getByRole('link', { name: '$12.34' }).waitFor();
    await expectCardsInside(['Amount', 'Status', 'Method', 'Customer', 'Date']);
    await ui.check('360px-payments');
  });

  it('shows the orders list the same way', async () => {
    await ui.page.goto(`${ui.browser.base}/orders`);
    await ui.page.getByRole('link', { name: '$49.90' }).waitFor();
    await expectCardsInside(['Total', 'Status', 'Type', 'Customer', 'Date']);
    await ui.check('360px-orders');
  });
});
