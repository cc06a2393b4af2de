/**
 * The merchant Dashboard's payment page shows how each attempt was authenticated (3-D Secure): its status, the
 * protocol version and ECI when the issuer gave them, and whether the liability shifted to the issuer — for a
 * challenge passed, one failed, and a card that was not asked. Headless Chromium, screenshots and axe-core under
 * test-output/dashboard/.
 */
import { expect } from 'chai';
import { createMerchantUser } from '../helpers/dashboard';
import { signInThroughPage, useDashboardBrowser } from '../helpers/dashboard-browser';
import { createTenant, giveWebsite, type Tenant } from '../helpers/factories';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { CARDS } from '../helpers/vault';

const CHALLENGE = { number: '4000000000003220', cvc: '123', brand: 'visa' };
const RETURN_URL = 'http://localhost:5999/shop/thanks';

describe('Merchant Dashboard shows each attempt’s 3-D Secure in headless Chromium (e2e)', function () {
  this.timeout(180_000);
  const ui = useDashboardBrowser();
  let tenant: Tenant;

  before(async () => {
    tenant = await createTenant();
    await giveWebsite(tenant);
    await cascade(tenant, ['provider_a'], { webhooks: false });
    const owner = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'owner' });
    await ui.page.goto(`${ui.browser.base}/sign-in`);
    await signInThroughPage(ui.page, owner.email, owner.password);
  });

  /** A challenged charge whose buyer answered the challenge page (its form POST, then the return endpoint). */
  async function challenged(outcome: 'authenticated' | 'failed'): Promise<string> {
    const res = await charge(tenant, cardCharge(await cardToken(tenant, CHALLENGE), { return_url: RETURN_URL }));
    expect(res.status, res.text).to.equal(201);
    const { id, next_action } = res.body.data;
    const answered = await fetch(next_action.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `outcome=${outcome}`,
      redirect: 'manual',
    });
    await fetch(answered.headers.get('location')!, { redirect: 'manual' });
    return id;
  }

  const attemptText = async (id: string) => {
    await ui.page.goto(`${ui.browser.base}/payments/${id}`);
    const authentication = ui.page.locator('.timeline li .three-ds').first();
    await authentication.waitFor();
    return (await authentication.textContent())?.replace(/\s+/g, ' ').trim();
  };

  it('a passed challenge: 3-D Secure authenticated, version and ECI, liability shifted to the issuer', async () => {
    const id = await challenged('authenticated');
    expect(await attemptText(id)).to.equal('3-D Secure: Authenticated · version 2.2.0 · ECI 05 · liability shifted');
    await ui.check('payment-3ds-authenticated');
  });

  it('a failed challenge: 3-D Secure failed, liability not shifted', async () => {
    const id = await challenged('failed');
    expect(await attemptText(id)).to.match(/^3-D Secure: Failed( · .*)? · liability not shifted$/);
    await ui.check('payment-3ds-failed');
  });

  it('a card nobody asked to authenticate: 3-D Secure not requested, liability not shifted', async () => {
    const res = await charge(tenant, cardCharge(await cardToken(tenant, CARDS.visa)));
    expect(res.status, res.text).to.equal(201);
    expect(await attemptText(res.body.data.id)).to.equal('3-D Secure: Not requested · liability not shifted');
  });
});
