/**
 * GET /merchant/overview's setup checklist: what a merchant must configure before a payment can be taken and
 * heard of — an active connector, an active routing profile, an active webhook endpoint — each ticked from the
 * merchant's own configuration only.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { createTenant, type Tenant } from '../helpers/factories';
import { cascade } from '../helpers/transactions';
import { createConfig } from '../helpers/webhooks';

async function setupOf(tenant: Tenant): Promise<Record<string, boolean>> {
  const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'viewer' });
  const { access_token: token } = await signIn('merchant', user);
  const res = await api.get('/merchant/overview', {
    headers: bearer(token as string, { 'x-merchant-id': tenant.merchant_id }),
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.setup;
}

describe('GET /merchant/overview — the setup checklist', () => {
  it('ticks connector, routing and webhook as the merchant configures each, never from another merchant', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    await cascade(other, ['provider_a']);
    await createConfig(other, { url: 'https://other.example.com/hook' });
    expect(await setupOf(tenant)).to.deep.equal({ connector: false, routing: false, webhook: false });
    await cascade(tenant, ['provider_a']);
    expect(await setupOf(tenant)).to.deep.equal({ connector: true, routing: true, webhook: false });
    await createConfig(tenant, { url: 'https://mine.example.com/hook' });
    expect(await setupOf(tenant)).to.deep.equal({ connector: true, routing: true, webhook: true });
  });
});
