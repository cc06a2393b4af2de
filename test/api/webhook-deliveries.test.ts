/**
 * GET /merchants/:merchant_id/webhook-deliveries (Document 1) and, beyond the spec, POST …/redeliver and
 * POST …/recover on a webhook configuration.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { newId } from '../../domain/platform/ids';
import {
  createConfig,
  deliveryRows,
  recordTestEvent,
  startReceiver,
  waitUntil,
  type Receiver,
} from '../helpers/webhooks';

const deliveriesPath = (merchantId: string) => `/merchants/${merchantId}/webhook-deliveries`;

/** A delivery attempt row as the delivery activity writes it (fixtures for list and recover). */
async function insertAttempt(
  tenant: Tenant,
  configId: string,
  eventId: string,
  status: string,
  createdAt: Date,
  attempt = 1,
) {
  await stack()
    .orm.em.fork()
    .execute(
      `insert into webhook_deliveries (id, merchant_id, merchant_webhook_config_id, event_id, event_type, workflow_id, trigger,
       attempt_number, target_url, http_status_code, status, next_retry_at, created_at, sent_at)
     select ?, ?, ?, id, type, ?, 'automatic', ?, 'https://hooks.example.com', 500, ?, ?, ?, ? from events where id = ?`,
      [
        newId('whd'),
        tenant.merchant_id,
        configId,
        `webhook-${eventId}-${configId}`,
        attempt,
        status,
        status === 'retrying' ? new Date(createdAt.getTime() + 5000) : null,
        createdAt,
        createdAt,
        eventId,
      ],
    );
}

describe('GET /api/v1/merchants/:merchant_id/webhook-deliveries', () => {
  let tenant: Tenant;
  let configId: string;
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000);
  beforeEach(async () => {
    tenant = await createTenant();
    configId = (
      await createConfig(tenant, { url: 'https://hooks.example.com/a', event_filter: ['subscription.paused'] })
    ).id;
  });
  const list = (query: Record<string, any> = {}, key = tenant.merchant_secret_key, merchantId = tenant.merchant_id) =>
    api.get(deliveriesPath(merchantId), { key, query });

  it('lists attempts newest first as bare {data, meta} with flat pagination', async () => {
    const event = await recordTestEvent(
      tenant,
      'transaction.created',
      { id: 'tx_l', order_id: 'ord_l' },
      { fannedOut: true },
    );
    await insertAttempt(tenant, configId, event.id, 'retrying', hoursAgo(2), 1);
    await insertAttempt(tenant, configId, event.id, 'failed', hoursAgo(1), 2);
    const res = await list({ limit: 1 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(['data', 'meta']);
    expect(res.body.meta).to.deep.equal({
      page: 1,
      limit: 1,
      total: 2,
      total_pages: 2,
      has_next: true,
      has_prev: false,
    });
    expect(res.body.data[0]).to.include({
      attempt_number: 2,
      status: 'failed',
      payment_transaction_id: 'tx_l',
      order_id: 'ord_l',
      event_id: event.id,
    });
    expect(Object.keys(res.body.data[0]).slice(0, 16)).to.deep.equal([
      'id',
      'merchant_id',
      'merchant_webhook_config_id',
      'payment_transaction_id',
      'order_id',
      'event_type',
      'livemode',
      'payload',
      'target_url',
      'attempt_number',
      'http_status_code',
      'response_body',
      'status',
      'next_retry_at',
      'created_at',
      'sent_at',
    ]);
  });

  it('filters by status (several values), from/to (inclusive), webhook_id and event_id', async () => {
    const [a, b] = [
      await recordTestEvent(tenant, 'transaction.created', {}, { fannedOut: true }),
      await recordTestEvent(tenant, 'transaction.failed', {}, { fannedOut: true }),
    ];
    await insertAttempt(tenant, configId, a.id, 'retrying', hoursAgo(3));
    await insertAttempt(tenant, configId, a.id, 'succeeded', hoursAgo(2), 2);
    await insertAttempt(tenant, configId, b.id, 'failed', hoursAgo(1));
    const statuses = async (query: Record<string, any>) => (await list(query)).body.data.map((d: any) => d.status);
    expect(await statuses({ status: 'failed' })).to.deep.equal(['failed']);
    expect(await statuses({ status: 'failed,success' })).to.deep.equal(['failed', 'success']);
    expect(await statuses({ status: ['retrying', 'success'] })).to.deep.equal(['success', 'retrying']);
    expect(await statuses({ from: hoursAgo(2.5).toISOString() })).to.deep.equal(['failed', 'success']);
    expect(await statuses({ to: hoursAgo(1.5).toISOString() })).to.deep.equal(['success', 'retrying']);
    expect(await statuses({ event_id: b.id })).to.deep.equal(['failed']);
    expect(await statuses({ webhook_id: configId })).to.have.length(3);
  });

  it('refuses unknown statuses, bad dates, from after to and unknown parameters (400)', async () => {
    expectFieldErrors(await list({ status: 'pending' }), ['status']);
    expectFieldErrors(await list({ from: 'yesterday' }), ['from']);
    expectFieldErrors(await list({ from: hoursAgo(1).toISOString(), to: hoursAgo(2).toISOString() }), ['from']);
    expectFieldErrors(await list({ merchant: 'x' }), ['merchant']);
    expectFieldErrors(await list({ page: 0 }), ['page']);
  });

  it("shows only the merchant's own attempts; organization key via the path; webhooks:read required", async () => {
    const event = await recordTestEvent(tenant, 'transaction.created', {}, { fannedOut: true });
    await insertAttempt(tenant, configId, event.id, 'failed', hoursAgo(1));
    const second = await addMerchant(tenant);
    expect((await list({}, second.merchantKey, second.merchantId)).body.data).to.deep.equal([]);
    expect((await list({}, tenant.organization_secret_key)).body.data).to.have.length(1);
    expectError(await list({}, second.merchantKey), 403, 'authorization_error');
    expectError(await list({}, await keyWithScopes(tenant, ['webhooks:write'])), 403, 'authorization_error');
  });
});

describe('POST /api/v1/merchants/:merchant_id/webhook-configs/:webhook_id/redeliver', () => {
  let tenant: Tenant;
  let receiver: Receiver;
  beforeEach(async () => {
    tenant = await createTenant();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });
  const redeliver = (
    configId: string,
    body: unknown,
    key = tenant.merchant_secret_key,
    merchantId = tenant.merchant_id,
  ) => api.post(`/merchants/${merchantId}/webhook-configs/${configId}/redeliver`, { key, body });

  it('answers 202 and sends the event once more, under a manual workflow id of its own', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/again') });
    const event = await recordTestEvent(tenant, 'transaction.authorized', { id: 'tx_r' });
    await receiver.waitFor((all) => all.length === 1);
    const res = await redeliver(config.id, { event_id: event.id });
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.deep.equal({ merchant_webhook_config_id: config.id, event_id: event.id, status: 'queued' });
    await receiver.waitFor((all) => all.length === 2);
    const rows = await waitUntil(async () => {
      const found = await deliveryRows('event_id = ?', [event.id]);
      return found.length === 2 && found;
    });
    expect(rows.map((r) => [r.trigger, r.attempt_number, r.status])).to.deep.equal([
      ['automatic', 1, 'succeeded'],
      ['manual', 1, 'succeeded'],
    ]);
    expect(rows[1].workflow_id).to.match(new RegExp(`^webhook-${event.id}-${config.id}-manual-[0-9A-Za-z]+$`));
  });

  it('refuses an inactive endpoint (422) and an event it does not subscribe to (422)', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/x'), event_filter: ['transaction.failed'] });
    const event = await recordTestEvent(tenant, 'transaction.authorized', {}, { fannedOut: true });
    expectError(await redeliver(config.id, { event_id: event.id }), 422, 'business_rule_error', 'EVENT_NOT_SUBSCRIBED');
    await api.patch(`/merchants/${tenant.merchant_id}/webhook-configs/${config.id}`, {
      key: tenant.merchant_secret_key,
      body: { is_active: false },
    });
    expectError(
      await redeliver(config.id, { event_id: event.id }),
      422,
      'business_rule_error',
      'WEBHOOK_CONFIG_INACTIVE',
    );
  });

  it("names event_id (400) for an unknown event or another merchant's; 404 for another merchant's endpoint; 403 without webhooks:write", async () => {
    const config = await createConfig(tenant, { url: receiver.url('/x') });
    const other = await createTenant();
    const foreign = await recordTestEvent(other, 'transaction.created', {}, { fannedOut: true });
    expectFieldErrors(await redeliver(config.id, { event_id: foreign.id }), ['event_id']);
    expectFieldErrors(await redeliver(config.id, { event_id: 'evt_unknown000000000000000' }), ['event_id']);
    expectFieldErrors(await redeliver(config.id, {}), ['event_id']);
    const second = await addMerchant(tenant);
    expectError(
      await redeliver(config.id, { event_id: foreign.id }, tenant.organization_secret_key, second.merchantId),
      404,
      'not_found_error',
    );
    expectError(
      await redeliver(config.id, { event_id: foreign.id }, await keyWithScopes(tenant, ['webhooks:read'])),
      403,
      'authorization_error',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).to.have.length(0);
  });
});

describe('POST /api/v1/merchants/:merchant_id/webhook-configs/:webhook_id/recover', () => {
  let tenant: Tenant;
  let receiver: Receiver;
  beforeEach(async () => {
    tenant = await createTenant();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });
  const recover = (configId: string, body: unknown, key = tenant.merchant_secret_key) =>
    api.post(`/merchants/${tenant.merchant_id}/webhook-configs/${configId}/recover`, { key, body });
  const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);

  it('sends once more every event whose delivery failed since the time and never succeeded; nothing else', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/recover') });
    const event = () => recordTestEvent(tenant, 'transaction.created', {}, { fannedOut: true });
    const [failed1, failed2, laterSucceeded, tooOld, stillRetrying] = [
      await event(),
      await event(),
      await event(),
      await event(),
      await event(),
    ];
    await insertAttempt(tenant, config.id, failed1.id, 'failed', ago(30));
    await insertAttempt(tenant, config.id, failed2.id, 'failed', ago(20));
    await insertAttempt(tenant, config.id, laterSucceeded.id, 'failed', ago(20));
    await insertAttempt(tenant, config.id, laterSucceeded.id, 'succeeded', ago(10), 2);
    await insertAttempt(tenant, config.id, tooOld.id, 'failed', ago(120));
    await insertAttempt(tenant, config.id, stillRetrying.id, 'retrying', ago(10));
    const since = ago(60).toISOString();
    const res = await recover(config.id, { since });
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.include({ merchant_webhook_config_id: config.id, since, events_queued: 2 });
    expect(Date.parse(res.body.until)).to.be.closeTo(Date.now(), 5_000);
    await receiver.waitFor((all) => all.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.requests.map((r) => r.headers['webhook-id']).sort()).to.deep.equal([failed1.id, failed2.id].sort());
    const manual = await waitUntil(async () => {
      const rows = await deliveryRows(`merchant_webhook_config_id = ? and trigger = 'manual'`, [config.id]);
      return rows.length === 2 && rows;
    });
    for (const row of manual) expect(row.workflow_id).to.match(/-recover-[0-9A-Za-z]+$/);
  });

  it('queues nothing (202, 0) when nothing failed in the window', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/none') });
    const res = await recover(config.id, { since: ago(60).toISOString() });
    expect(res.status).to.equal(202);
    expect(res.body.events_queued).to.equal(0);
  });

  it('refuses since in the future or after until (400), a missing since (400), an inactive endpoint (422)', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/x') });
    expectFieldErrors(await recover(config.id, { since: new Date(Date.now() + 3600_000).toISOString() }), ['since']);
    expectFieldErrors(await recover(config.id, { since: ago(10).toISOString(), until: ago(20).toISOString() }), [
      'since',
    ]);
    expectFieldErrors(await recover(config.id, {}), ['since']);
    expectFieldErrors(await recover(config.id, { since: 'last week' }), ['since']);
    await api.patch(`/merchants/${tenant.merchant_id}/webhook-configs/${config.id}`, {
      key: tenant.merchant_secret_key,
      body: { is_active: false },
    });
    expectError(
      await recover(config.id, { since: ago(10).toISOString() }),
      422,
      'business_rule_error',
      'WEBHOOK_CONFIG_INACTIVE',
    );
    expectError(await recover('whc_unknown00000000000000', { since: ago(10).toISOString() }), 404, 'not_found_error');
    expectError(
      await recover(config.id, { since: ago(10).toISOString() }, await keyWithScopes(tenant, ['webhooks:read'])),
      403,
    );
  });
});
