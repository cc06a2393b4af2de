/**
 * Webhook endpoints managed from the merchant Dashboard: owners and admins add (secret shown once), edit events,
 * disable and rotate the secret of the header merchant's endpoints; a viewer is refused (403) and another merchant's
 * endpoint does not exist (404); every change names the person in the activity log.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { activityOf } from '../helpers/merchants';
import { CONFIG_KEYS, createConfig } from '../helpers/webhooks';

async function session(tenant: Tenant, role: 'owner' | 'admin' | 'viewer') {
  const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role });
  const { access_token: token } = await signIn('merchant', user);
  return bearer(token as string, { 'x-merchant-id': tenant.merchant_id });
}

describe('Merchant Dashboard: webhook endpoints', function () {
  this.timeout(60_000);
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  it('an admin adds an endpoint (secret only in that answer), edits its events, disables it and rotates its secret', async () => {
    const headers = await session(tenant, 'admin');
    const created = await api.post('/merchant/webhook-configs', {
      headers,
      body: { url: 'https://hooks.example.com/a', event_filter: ['transaction.authorized'] },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.secret).to.match(/^whsec_/);
    const id = created.body.id;

    const read = await api.get(`/merchant/webhook-configs/${id}`, { headers });
    expect(read.body).to.have.all.keys(CONFIG_KEYS);
    const edited = await api.patch(`/merchant/webhook-configs/${id}`, {
      headers,
      body: { event_filter: ['transaction.authorized', 'transaction.failed'], is_active: false },
    });
    expect(edited.status, edited.text).to.equal(200);
    expect(edited.body).to.include({ is_active: false });
    expect(edited.body.event_filter).to.deep.equal(['transaction.authorized', 'transaction.failed']);

    const rotated = await api.post(`/merchant/webhook-configs/${id}/rotate-secret`, { headers });
    expect(rotated.status, rotated.text).to.equal(200);
    expect(rotated.body.secret)
      .to.match(/^whsec_/)
      .and.not.equal(created.body.secret);

    const actions = (await activityOf(tenant.merchant_id))
      .filter((row) => row.action.startsWith('webhook_config.'))
      .map((row) => [row.action, row.actor_type]);
    expect(actions).to.deep.equal([
      ['webhook_config.created', 'dashboard_user'],
      ['webhook_config.updated', 'dashboard_user'],
      ['webhook_config.secret_rotated', 'dashboard_user'],
    ]);
  });

  it('lists the event types an endpoint can pick, with what triggers each', async () => {
    const res = await api.get('/merchant/webhook-event-types', { headers: await session(tenant, 'viewer') });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.map((t: any) => t.type)).to.include.members(['transaction.authorized', 'subscription.paused']);
    expect(res.body[0].description).to.be.a('string').that.is.not.empty;
  });

  it("a viewer is refused every change (403); another merchant's endpoint is 404; an http URL off loopback is 400", async () => {
    const viewer = await session(tenant, 'viewer');
    expectError(
      await api.post('/merchant/webhook-configs', { headers: viewer, body: { url: 'https://x.example.com' } }),
      403,
    );
    const other = await createTenant();
    const theirs = await createConfig(other, { url: 'https://theirs.example.com/hook' });
    const owner = await session(tenant, 'owner');
    expectError(
      await api.patch(`/merchant/webhook-configs/${theirs.id}`, { headers: owner, body: { is_active: false } }),
      404,
    );
    expectError(await api.post(`/merchant/webhook-configs/${theirs.id}/rotate-secret`, { headers: owner }), 404);
    const mine = await createConfig(tenant, { url: 'https://mine.example.com/hook' });
    expectError(
      await api.patch(`/merchant/webhook-configs/${mine.id}`, { headers: viewer, body: { is_active: false } }),
      403,
    );
    expectError(
      await api.post('/merchant/webhook-configs', { headers: owner, body: { url: 'ftp://files.example.com' } }),
      400,
    );
    const still = await api.get(`/merchants/${other.merchant_id}/webhook-configs/${theirs.id}`, {
      key: other.merchant_secret_key,
    });
    expect(still.body.is_active).to.equal(true);
  });
});
