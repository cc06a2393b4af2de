/**
 * Test-mode connectors register their webhook_url and secret at the sandbox PSP themselves (on create, and again
 * when the secret or credentials change), so a connector made purely through the API receives its provider events.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { connectorBody, connectorsPath, validWebhookSecret } from '../helpers/connectors';
import { control } from '../helpers/sandbox';
import { charge, providerReferenceOf, waitForTransaction } from '../helpers/transactions';

async function endpointsOf(slug: string, credentials: Record<string, string>): Promise<Array<{ url: string }>> {
  const account = (await control('POST', '/accounts/resolve', { provider: slug, credentials })).body.account;
  const listed = (
    await control('GET', `/webhook-endpoints?${new URLSearchParams({ provider: slug, account }).toString()}`)
  ).body.data;
  // Listed without the query string (the token), shown as "?…".
  return listed.map((e: { url: string }) => ({ url: e.url.split('?')[0] }));
}

describe('POST/PATCH /merchants/:merchant_id/connectors — sandbox webhook registration', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const create = async (overrides: Record<string, unknown>) => {
    const body = connectorBody('provider_b', overrides);
    // A fresh provider_b merchant account, so no other test's endpoint shares it.
    body.credentials.merchant_account = `Acme${randomUUID().slice(0, 8)}`;
    const res = await api.post(connectorsPath(tenant.merchant_id), { key: tenant.merchant_secret_key, body });
    expect(res.status, res.text).to.equal(201);
    return { connector: res.body, credentials: body.credentials as Record<string, string> };
  };

  it('registers a test-mode connector with a webhook secret, and the pix settle webhook arrives after a secret change', async () => {
    const { connector, credentials } = await create({ webhook_secret: validWebhookSecret('provider_b') });
    const bareUrl = connector.webhook_url.split('?')[0];
    expect((await endpointsOf('provider_b', credentials)).map((e) => e.url)).to.deep.equal([bareUrl]);

    // A new secret replaces the endpoint (one, signing with the new secret), not a second one.
    const patched = await api.patch(`${connectorsPath(tenant.merchant_id)}/${connector.id}`, {
      key: tenant.merchant_secret_key,
      body: { webhook_secret: validWebhookSecret('provider_b') },
    });
    expect(patched.status, patched.text).to.equal(200);
    expect((await endpointsOf('provider_b', credentials)).map((e) => e.url)).to.deep.equal([bareUrl]);

    const profile = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Only', payment_method: '*', default_merchant_connector_id: connector.id },
    });
    expect(profile.status, profile.text).to.equal(201);
    const active = await api.patch(`/merchants/${tenant.merchant_id}/routing-profiles/${profile.body.id}`, {
      key: tenant.merchant_secret_key,
      body: { is_active: true },
    });
    expect(active.status, active.text).to.equal(200);

    const tx = (
      await charge(tenant, {
        payment_method: 'pix',
        charge_type: 'payment',
        country: 'BR',
        amount: 4990,
        currency: 'BRL',
      })
    ).body.data;
    expect(tx.status).to.equal('pending');
    const settled = await control('POST', `/payments/${await providerReferenceOf(tenant, tx.id)}/settle`);
    expect(settled.status, JSON.stringify(settled.body)).to.be.lessThan(300);
    expect((await waitForTransaction(tenant, tx.id, (t) => t.status !== 'pending')).status).to.equal('authorized');
  });

  it('registers nothing for a connector without a webhook secret or not in test mode', async () => {
    const unsigned = await create({});
    expect(await endpointsOf('provider_b', unsigned.credentials)).to.deep.equal([]);
    const live = await create({ is_test_mode: false, webhook_secret: validWebhookSecret('provider_b') });
    expect(await endpointsOf('provider_b', live.credentials)).to.deep.equal([]);
  });
});
