/**
 * Delivery through the whole stack (recordEvent → NOTIFY → outbox listener → one delivery workflow per endpoint
 * → activity for every attempt → a real HTTP receiver on 127.0.0.1), checked with an independent Standard
 * Webhooks verifier.
 */
import { expect } from 'chai';
import { TASK_QUEUES } from '../../workflows/definitions';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { ISO_UTC_MS } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { deliveryWorkflowId } from '../../workflows/webhook-delivery.shared';
import {
  configsPath,
  createConfig,
  deliveryRows,
  recordTestEvent,
  startReceiver,
  verifyStandardWebhook,
  waitUntil,
  type Receiver,
} from '../helpers/webhooks';

const TRANSACTION = {
  id: 'tx_7Hq2Lm',
  organization_id: 'org_x',
  merchant_id: 'mrc_x',
  order_id: 'ord_9Kp',
  external_order_id: 'A-1001',
  customer_id: 'cust_1',
  amount_authorized: 1999,
  amount_captured: 1999,
  currency: 'BRL',
  payment_method: 'credit_card',
  charge_type: 'one_time',
  country: 'BR',
  status: 'authorized',
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:01.000Z',
};

describe('Webhook delivery (signed HTTP POST of the Event envelope)', () => {
  let tenant: Tenant;
  let receiver: Receiver;
  beforeEach(async () => {
    tenant = await createTenant();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('POSTs {id, type, livemode, created_at, data: {object}} as JSON, signed per Standard Webhooks, verifiable independently', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/hook') });
    const event = await recordTestEvent(tenant, 'transaction.authorized', TRANSACTION);
    const [request] = await receiver.waitFor((requests) => requests.length >= 1);
    expect(request.method).to.equal('POST');
    expect(request.headers['content-type']).to.equal('application/json');
    expect(request.body).to.equal(
      JSON.stringify({
        id: event.id,
        type: 'transaction.authorized',
        livemode: true,
        created_at: event.createdAt.toISOString(),
        data: { object: TRANSACTION },
      }),
    );
    expect(request.headers['webhook-id']).to.equal(event.id);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).to.be.below(30);
    expect(request.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(request.headers['x-switchyard-signature']).to.equal(request.headers['webhook-signature']);
    expect(verifyStandardWebhook(config.secret, request.headers, request.body)).to.equal(true);
    // The check really checks: another secret, a changed body or a changed timestamp fail.
    const other = await createConfig(tenant, { url: receiver.url('/unused'), event_filter: ['subscription.paused'] });
    expect(verifyStandardWebhook(other.secret, request.headers, request.body)).to.equal(false);
    expect(verifyStandardWebhook(config.secret, request.headers, request.body.replace('1999', '2999'))).to.equal(false);
    expect(
      verifyStandardWebhook(
        config.secret,
        { ...request.headers, 'webhook-timestamp': String(Number(request.headers['webhook-timestamp']) + 1) },
        request.body,
      ),
    ).to.equal(false);
  });

  it('records the attempt (success, 200, body, payload, sent_at) and sets last_triggered_at', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/hook') });
    receiver.respond('/hook', () => ({ status: 200, body: 'thanks' }));
    const event = await recordTestEvent(tenant, 'transaction.authorized', TRANSACTION);
    await waitUntil(
      async () => (await deliveryRows('event_id = ?', [event.id])).length === 1,
      15_000,
      'delivery record',
    );
    const res = await api.get(`/merchants/${tenant.merchant_id}/webhook-deliveries`, {
      key: tenant.merchant_secret_key,
    });
    expect(res.status, res.text).to.equal(200);
    const [record] = res.body.data;
    expect(record).to.deep.include({
      merchant_id: tenant.merchant_id,
      merchant_webhook_config_id: config.id,
      payment_transaction_id: 'tx_7Hq2Lm',
      order_id: 'ord_9Kp',
      event_type: 'transaction.authorized',
      target_url: receiver.url('/hook'),
      attempt_number: 1,
      http_status_code: 200,
      response_body: 'thanks',
      status: 'success',
      next_retry_at: null,
      event_id: event.id,
      trigger: 'automatic',
      error: null,
    });
    expect(record.payload).to.deep.equal({
      id: event.id,
      type: 'transaction.authorized',
      livemode: true,
      created_at: event.createdAt.toISOString(),
      data: { object: TRANSACTION },
    });
    expect(record.id).to.match(/^whd_/);
    expect(record.sent_at).to.match(ISO_UTC_MS);
    const read = await api.get(`${configsPath(tenant.merchant_id)}/${config.id}`, { key: tenant.merchant_secret_key });
    expect(read.body.last_triggered_at).to.equal(record.sent_at);
  });

  it('makes every attempt in the delivery workflow, attempt 1 included: a receiver that answers at once has its workflow too', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/at-once') });
    const event = await recordTestEvent(tenant, 'transaction.authorized', TRANSACTION);
    await receiver.waitFor((all) => all.length >= 1);
    const workflow = stack().api.deps.temporal.client.workflow.getHandle(deliveryWorkflowId(event.id, config.id));
    expect(await workflow.result()).to.deep.equal({
      status: 'succeeded',
      attempts: 1,
      end: 'delivered',
      lastHttpStatus: 200,
    });
    const rows = await deliveryRows('event_id = ?', [event.id]);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({
      attempt_number: 1,
      status: 'succeeded',
      http_status_code: 200,
      trigger: 'automatic',
      workflow_id: deliveryWorkflowId(event.id, config.id),
    });
    expect((await workflow.describe()).searchAttributes).to.deep.include({ DeliveryStatus: ['succeeded'] });
  });

  it('retries a 5xx after about 5 s, and keeps at most 1 KiB of a response body', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/flaky') });
    receiver.respond('/flaky', (_request, count) =>
      count === 1 ? { status: 503, body: 'é'.repeat(3000) } : { status: 204 },
    );
    const event = await recordTestEvent(tenant, 'transaction.failed', { id: 'tx_1', status: 'failed' });
    const requests = await receiver.waitFor((all) => all.length >= 2, 20_000);
    const gap = requests[1].at - requests[0].at;
    expect(gap).to.be.within(4_000, 9_000);
    expect(requests[1].headers['webhook-id']).to.equal(event.id);
    const rows = await waitUntil(async () => {
      const found = await deliveryRows('event_id = ?', [event.id]);
      return found.length === 2 && found;
    });
    expect(rows.map((r) => [r.attempt_number, r.status, r.http_status_code])).to.deep.equal([
      [1, 'retrying', 503],
      [2, 'succeeded', 204],
    ]);
    expect(Buffer.byteLength(rows[0].response_body, 'utf8')).to.be.at.most(1024).and.above(1000);
    expect(rows[0].response_body).to.match(/^é+$/);
    expect(new Date(rows[0].next_retry_at).getTime() - new Date(rows[0].sent_at).getTime()).to.be.within(4_500, 6_000);
    // Both attempts are the workflow's (webhook-<evt>-<whc>), findable in the Temporal UI by merchant, type and status.
    const workflow = stack().api.deps.temporal.client.workflow.getHandle(deliveryWorkflowId(event.id, config.id));
    const description = await waitUntil(async () => {
      const found = await workflow.describe();
      return found.status.name === 'COMPLETED' && found;
    });
    expect(description.searchAttributes).to.deep.include({
      MerchantId: [tenant.merchant_id],
      EventType: ['transaction.failed'],
      DeliveryStatus: ['succeeded'],
    });
    // Deliveries run on their own task queue (and Worker): a hanging endpoint cannot take the charges' slots.
    expect(description.taskQueue).to.equal(TASK_QUEUES.webhooks);
    expect(await workflow.result()).to.deep.equal({
      status: 'succeeded',
      attempts: 2,
      end: 'delivered',
      lastHttpStatus: 204,
    });
  });

  it('stops at 410 Gone: the attempt is failed and the endpoint is deactivated (and logged) without further attempts', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/gone') });
    receiver.respond('/gone', () => ({ status: 410 }));
    const event = await recordTestEvent(tenant, 'transaction.created', { id: 'tx_2' });
    await waitUntil(async () => (await deliveryRows('event_id = ?', [event.id])).length === 1);
    const read = await api.get(`${configsPath(tenant.merchant_id)}/${config.id}`, { key: tenant.merchant_secret_key });
    expect(read.body.is_active).to.equal(false);
    const [row] = await deliveryRows('event_id = ?', [event.id]);
    expect(row).to.include({ status: 'failed', http_status_code: 410, next_retry_at: null });
    const log = await stack()
      .orm.em.fork()
      .execute<{ action: string; actor_type: string }[]>(
        `select action, actor_type from merchant_activities where merchant_id = ? and action = 'webhook_config.deactivated'`,
        [tenant.merchant_id],
      );
    expect(log).to.deep.equal([{ action: 'webhook_config.deactivated', actor_type: 'system' }]);
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    expect(receiver.requests).to.have.length(1);
  });

  it('signs with the new secret only from the rotation on (the previous secret stops being valid)', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/hook') });
    const rotated = (
      await api.post(`/merchants/${tenant.merchant_id}/webhooks/${config.id}/rotate-secret`, {
        key: tenant.merchant_secret_key,
      })
    ).body;
    await recordTestEvent(tenant, 'transaction.created', { id: 'tx_3' });
    const [after] = await receiver.waitFor((all) => all.length >= 1);
    expect(String(after.headers['webhook-signature']).split(' ')).to.have.length(1);
    expect(verifyStandardWebhook(rotated.secret, after.headers, after.body)).to.equal(true);
    expect(verifyStandardWebhook(config.secret, after.headers, after.body)).to.equal(false);
  });

  it('never sends a later attempt to a configuration deleted meanwhile', async () => {
    const config = await createConfig(tenant, { url: receiver.url('/down') });
    receiver.respond('/down', () => ({ status: 500 }));
    await recordTestEvent(tenant, 'transaction.created', { id: 'tx_5' });
    await receiver.waitFor((all) => all.length >= 1);
    await api.delete(`${configsPath(tenant.merchant_id)}/${config.id}`, { key: tenant.merchant_secret_key });
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    expect(receiver.requests).to.have.length(1);
  });
});
