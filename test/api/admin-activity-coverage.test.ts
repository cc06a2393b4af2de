/**
 * Rule: every administrative action on a merchant is in its activity record, with who did it, in the transaction
 * that makes the change: test clocks created, advanced (through the API or the Dashboard) and deleted, members
 * invited, changed and removed, connectors, routing and webhook endpoints created, changed and deleted. A refused
 * request records nothing.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, uniqueEmail, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { keyId } from '../helpers/merchants';
import { connectorsPath, postConnector } from '../helpers/connectors';
import { createProfile, profilePath } from '../helpers/routing';
import { createClock } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';
const FEB_28 = '2027-02-28T10:00:00.000Z';
const MAR_31 = '2027-03-31T10:00:00.000Z';

async function activity(tenant: Tenant): Promise<any[]> {
  const res = await api.get(`/merchants/${tenant.merchant_id}/activity`, {
    key: tenant.organization_secret_key,
    query: { limit: 100 },
  });
  expect(res.status, res.text).to.equal(200);
  return res.body.data;
}

/** Waits until the clock is ready again (the advance's workflow marks it). */
async function readyAgain(clockId: string): Promise<void> {
  for (;;) {
    const [row] = await rows('select status from test_clocks where id = ?', [clockId]);
    if (row.status === 'ready') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Rule: every administrative action is in the merchant activity record, with its actor', function () {
  this.timeout(120_000);
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('a test clock created, advanced by a key and by a Dashboard user, and deleted: one record each; a refused advance records nothing', async () => {
    const key = tenant.merchant_secret_key;
    const keyActor = { type: 'api_key', id: await keyId(key) };
    const clock = await createClock(tenant, JAN_31);
    const advanced = await api.post(`/test-clocks/${clock.id}/advance`, { key, body: { frozen_time: FEB_28 } });
    expect(advanced.status, advanced.text).to.equal(200);
    await readyAgain(clock.id);
    const refused = await api.post(`/test-clocks/${clock.id}/advance`, { key, body: { frozen_time: JAN_31 } });
    expect(refused.status, refused.text).to.equal(422);

    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'admin' });
    const { access_token: token } = await signIn('merchant', user);
    const fromDashboard = await api.post(`/merchant/test-clocks/${clock.id}/advance`, {
      headers: bearer(token as string, { 'x-merchant-id': tenant.merchant_id }),
      body: { frozen_time: MAR_31 },
    });
    expect(fromDashboard.status, fromDashboard.text).to.equal(200);
    await readyAgain(clock.id);
    expect((await api.delete(`/test-clocks/${clock.id}`, { key })).status).to.equal(204);

    const records = (await activity(tenant)).filter((record) => record.action.startsWith('test_clock.')).reverse();
    expect(records.map((record) => [record.action, record.actor, record.changes])).to.deep.equal([
      ['test_clock.created', keyActor, { test_clock_id: clock.id, name: 'Billing QA', frozen_time: JAN_31 }],
      ['test_clock.advanced', keyActor, { test_clock_id: clock.id, frozen_time: { from: JAN_31, to: FEB_28 } }],
      [
        'test_clock.advanced',
        { type: 'dashboard_user', id: user.id },
        { test_clock_id: clock.id, frozen_time: { from: FEB_28, to: MAR_31 } },
      ],
      ['test_clock.deleted', keyActor, { test_clock_id: clock.id, frozen_time: MAR_31, subscriptions_cancelled: 0 }],
    ]);
  });

  it('members invited, changed and removed, connectors, routing and webhook endpoints created, changed and deleted each leave their record', async () => {
    const orgKey = tenant.organization_secret_key;
    const key = tenant.merchant_secret_key;
    const members = `/merchants/${tenant.merchant_id}/members`;
    const invited = await api.post(members, { key: orgKey, body: { email: uniqueEmail('audit'), role: 'viewer' } });
    expect(invited.status, invited.text).to.equal(201);
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'viewer' });
    const [membership] = await rows('select id from merchant_members where user_id = ?', [user.id]);
    const member = `${members}/${membership.id}`;
    expect((await api.patch(member, { key: orgKey, body: { role: 'admin' } })).status).to.equal(200);
    expect((await api.delete(member, { key: orgKey })).status).to.equal(204);

    const connector = await postConnector(tenant);
    const connectorPath = `${connectorsPath(tenant.merchant_id)}/${connector.id}`;
    expect((await api.patch(connectorPath, { key, body: { name: 'Renamed' } })).status).to.equal(200);
    const profile = await createProfile(tenant);
    const profilePatch = await api.patch(profilePath(tenant.merchant_id, profile.id), {
      key,
      body: { name: 'Cards, renamed' },
    });
    expect(profilePatch.status, profilePatch.text).to.equal(200);
    expect((await api.delete(connectorPath, { key })).status).to.equal(204);

    const webhooks = `/merchants/${tenant.merchant_id}/webhook-configs`;
    const webhook = await api.post(webhooks, { key, body: { url: 'https://hooks.example.com/switchyard' } });
    expect(webhook.status, webhook.text).to.equal(201);
    const webhookPath = `${webhooks}/${webhook.body.id}`;
    expect((await api.patch(webhookPath, { key, body: { is_active: false } })).status).to.equal(200);
    expect((await api.delete(webhookPath, { key })).status).to.equal(204);

    const actions = (await activity(tenant)).map((record) => record.action);
    expect(actions).to.include.members([
      'member.invited',
      'member.role_changed',
      'member.removed',
      'connector.created',
      'connector.updated',
      'connector.deleted',
      'routing_profile.created',
      'routing_profile.updated',
      'webhook_config.created',
      'webhook_config.updated',
      'webhook_config.deleted',
    ]);
  });

  it("GET /merchant/activity gives a signed-in member the same records, newest first, paged, and only their merchant's", async () => {
    await createClock(tenant, JAN_31);
    await createClock(tenant, FEB_28);
    const other = await createTenant();
    await createClock(other, JAN_31);
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'viewer' });
    const { access_token: token } = await signIn('merchant', user);
    const headers = bearer(token as string, { 'x-merchant-id': tenant.merchant_id });

    const res = await api.get('/merchant/activity', { headers, query: { limit: 1 } });
    expect(res.status, res.text).to.equal(200);
    const all = await activity(tenant);
    expect(res.body.data).to.deep.equal(all.slice(0, 1));
    expect(res.body.meta).to.include({ page: 1, limit: 1, total: all.length });
    expect(res.body.data[0]).to.deep.include({ action: 'test_clock.created', merchant_id: tenant.merchant_id });
    const foreign = await api.get('/merchant/activity', {
      headers: bearer(token as string, { 'x-merchant-id': other.merchant_id }),
    });
    expect(foreign.status, foreign.text).to.equal(403);
  });
});
