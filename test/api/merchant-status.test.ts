/**
 * Merchant status is enforced (Document 3: suspended = temporarily blocked, inactive = deactivated): a non-active
 * merchant's public key is refused on every browser endpoint (sessions, tokens, hosted checkout), its secret-key and
 * Dashboard writes are refused, reads stay open, webhooks are still delivered, and reactivation restores everything.
 * Each refusal is a 403 with a code of its own (MERCHANT_SUSPENDED, MERCHANT_INACTIVE).
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { expectError } from '../helpers/envelope';
import { createConfig, recordTestEvent, startReceiver, type Receiver } from '../helpers/webhooks';
import { publicHeaders } from '../helpers/vault';
import { connectorBody } from '../helpers/connectors';

async function setStatus(tenant: Tenant, status: 'active' | 'inactive' | 'suspended'): Promise<void> {
  const res = await api.patch(`/merchants/${tenant.merchant_id}`, {
    key: tenant.organization_secret_key,
    body: { status },
  });
  expect(res.status, res.text).to.equal(200);
}

function expectRefused(res: Awaited<ReturnType<typeof api.get>>, code: string): void {
  const error = expectError(res, 403, 'authorization_error', code);
  expect(error.message).to.match(/reactivates it/);
}

describe('Merchant status: a suspended or inactive merchant cannot take payments or make changes', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('refuses a suspended merchant secret-key writes with 403 MERCHANT_SUSPENDED, reads stay open', async () => {
    await setStatus(tenant, 'suspended');
    const created = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    expectRefused(created, 'MERCHANT_SUSPENDED');
    expect((await api.get('/customers', { key: tenant.merchant_secret_key })).status).to.equal(200);
  });

  it('refuses an inactive merchant with 403 MERCHANT_INACTIVE', async () => {
    await setStatus(tenant, 'inactive');
    expectRefused(
      await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() }),
      'MERCHANT_INACTIVE',
    );
    expectRefused(
      await api.post('/sessions', { headers: publicHeaders(tenant.merchant_public_key), body: {} }),
      'MERCHANT_INACTIVE',
    );
  });

  it('refuses a suspended merchant public key: new browser sessions, and tokens in a session opened before', async () => {
    const opened = await api.post('/sessions', { headers: publicHeaders(tenant.merchant_public_key), body: {} });
    expect(opened.status, opened.text).to.equal(201);
    await setStatus(tenant, 'suspended');
    expectRefused(
      await api.post('/sessions', { headers: publicHeaders(tenant.merchant_public_key), body: {} }),
      'MERCHANT_SUSPENDED',
    );
    expectRefused(
      await api.post(`/sessions/${opened.body.sessionId}/refresh`, {
        headers: publicHeaders(tenant.merchant_public_key),
      }),
      'MERCHANT_SUSPENDED',
    );
    // An organization public key reaches the merchant through its checkout session's session: refused too.
    expectRefused(
      await api.get('/sessions/checkout', {
        headers: publicHeaders(tenant.organization_public_key, opened.body.sessionId),
      }),
      'MERCHANT_SUSPENDED',
    );
  });

  it('refuses a suspended merchant Dashboard writes; reads stay open', async () => {
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const { access_token: token } = await signIn('merchant', user);
    const headers = bearer(token, { 'x-merchant-id': tenant.merchant_id });
    await setStatus(tenant, 'suspended');
    expect((await api.get('/merchant/webhook-configs', { headers })).status).to.equal(200);
    const write = await api.post('/merchant/connectors', {
      headers,
      body: connectorBody('provider_b'),
    });
    expectRefused(write, 'MERCHANT_SUSPENDED');
  });

  describe('webhooks and reactivation', () => {
    let receiver: Receiver;
    before(async () => (receiver = await startReceiver()));
    after(() => receiver.close());

    it('still delivers webhooks to a suspended merchant, and reactivation restores its keys', async () => {
      await createConfig(tenant, { url: receiver.url('/suspended'), event_filter: ['transaction.refunded'] });
      await setStatus(tenant, 'suspended');
      const event = await recordTestEvent(tenant, 'transaction.refunded');
      await receiver.waitFor((requests) => requests.some((r) => r.path === '/suspended' && r.body.includes(event.id)));
      await setStatus(tenant, 'active');
      const created = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
      expect(created.status, created.text).to.equal(201);
      const session = await api.post('/sessions', { headers: publicHeaders(tenant.merchant_public_key), body: {} });
      expect(session.status, session.text).to.equal(201);
    });
  });
});
