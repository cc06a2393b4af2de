/**
 * webhookDeliveryWorkflow on the time-skipping test server, against a real receiver on 127.0.0.1: the whole
 * ~26 h schedule with jitter, recovery mid-way, Retry-After, 410, manual single attempts, disabled endpoints,
 * and what workflow history may hold (ids only: no secret, no payload).
 */
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createWebhookActivities } from '../../activities/webhooks';
import { webhookSettingsOf } from '../../activities/webhooks/deliver';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import {
  deliveryWorkflowId,
  RETRY_DELAYS_MS,
  RETRY_WINDOW_MS,
  type WebhookDeliveryInput,
} from '../../workflows/webhook-delivery.shared';
import { useTimeSkipping } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import {
  createConfig,
  deliveryRows,
  historyText,
  recordTestEvent,
  startReceiver,
  type Receiver,
} from '../helpers/webhooks';

const SECOND = 1000;
const HOUR = 3600 * SECOND;

type History = Awaited<
  ReturnType<ReturnType<TestWorkflowEnvironment['client']['workflow']['getHandle']>['fetchHistory']>
>;

/** Server time of each attempt: when its activity was scheduled. */
function attemptTimes(history: History): number[] {
  return (history.events ?? [])
    .filter((event) => event.activityTaskScheduledEventAttributes)
    .map((event) => Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6));
}

describe('webhookDeliveryWorkflow (time-skipping test server)', () => {
  const taskQueue = 'test-webhook-delivery';
  const server = useTimeSkipping();
  let worker: Worker;
  let tenant: Tenant;
  let receiver: Receiver;

  beforeEach(async () => {
    tenant = await createTenant();
    receiver = await startReceiver();
    worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle: stack().workflowBundle,
      activities: createWebhookActivities({ orm: stack().orm, webhooks: webhookSettingsOf(stack().config) }),
    });
  });
  afterEach(async () => {
    await receiver.close();
  });

  /** A configuration on `path` and an event kept away from the stack's own fan-out, then its delivery workflow. */
  async function deliver(
    path: string,
    options: {
      trigger?: 'automatic' | 'manual';
      object?: Record<string, unknown>;
    } = {},
  ) {
    const config = await createConfig(tenant, { url: receiver.url(path) });
    const event = await recordTestEvent(tenant, 'transaction.authorized', options.object ?? { id: 'tx_wf' }, {
      fannedOut: true,
    });
    const input: WebhookDeliveryInput = {
      eventId: event.id,
      configId: config.id,
      merchantId: tenant.merchant_id,
      eventType: event.type,
      trigger: options.trigger ?? 'automatic',
    };
    const handle = await server.env.client.workflow.start(webhookDeliveryWorkflow, {
      workflowId: deliveryWorkflowId(event.id, config.id),
      taskQueue,
      args: [input],
    });
    return { config, event, handle };
  }

  it('retries on the Svix-like schedule with jitter across about 26 h, then gives up (failed)', async () => {
    receiver.respond('/down', () => ({ status: 500, body: 'down' }));
    const { event, handle } = await deliver('/down');
    const result = await worker.runUntil(handle.result());
    expect(result).to.deep.equal({ status: 'failed', attempts: 8, end: 'exhausted', lastHttpStatus: 500 });

    const times = attemptTimes(await handle.fetchHistory());
    expect(times).to.have.length(8);
    const gaps = times.slice(1).map((time, i) => time - times[i]);
    RETRY_DELAYS_MS.forEach((base, i) =>
      expect(gaps[i], `wait after attempt ${i + 1}`).to.be.within(base * 0.9, base * 1.1 + 2 * SECOND),
    );
    // Jitter is real: the waits are not the bare base values.
    expect(gaps.slice(0, 6).filter((gap, i) => Math.abs(gap - RETRY_DELAYS_MS[i]) > 50)).to.have.length.above(3);
    expect(times[7] - times[0], 'last attempt').to.be.within(
      RETRY_WINDOW_MS * 0.99,
      RETRY_WINDOW_MS * 1.01 + 5 * SECOND,
    );

    expect(receiver.on('/down')).to.have.length(8);
    const rows = await deliveryRows('event_id = ?', [event.id]);
    expect(rows.map((r) => r.attempt_number)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(rows.map((r) => r.status)).to.deep.equal([...Array(7).fill('retrying'), 'failed']);
    expect(rows[7].next_retry_at).to.equal(null);
    for (const row of rows.slice(0, 7)) expect(row.next_retry_at).not.to.equal(null);
    const description = await handle.describe();
    expect(description.searchAttributes.DeliveryStatus).to.deep.equal(['failed']);
    expect(description.searchAttributes.MerchantId).to.deep.equal([tenant.merchant_id]);
    expect(description.searchAttributes.EventType).to.deep.equal(['transaction.authorized']);
  });

  it('delivers exactly once more to a receiver that recovers after 3 hours, then stops', async () => {
    let healthy = false;
    receiver.respond('/recovering', () => (healthy ? { status: 200 } : { status: 503 }));
    const { event, handle } = await deliver('/recovering');
    const result = await worker.runUntil(async () => {
      await server.env.sleep('3 hours');
      expect(receiver.on('/recovering')).to.have.length(5); // 0, 5 s, 5 min, 35 min, ~2 h 35 min
      expect((await handle.describe()).searchAttributes.DeliveryStatus).to.deep.equal(['retrying']);
      healthy = true;
      return handle.result();
    });
    expect(result).to.deep.equal({ status: 'succeeded', attempts: 6, end: 'delivered', lastHttpStatus: 200 });
    const times = attemptTimes(await handle.fetchHistory());
    expect(times[5] - times[0]).to.be.within(0.9 * 7.6 * HOUR, 1.1 * 7.6 * HOUR);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const requests = receiver.on('/recovering');
    expect(requests).to.have.length(6);
    expect(new Set(requests.map((r) => r.headers['webhook-id']))).to.deep.equal(new Set([event.id]));
    const rows = await deliveryRows('event_id = ?', [event.id]);
    expect(rows.map((r) => r.status)).to.deep.equal([
      'retrying',
      'retrying',
      'retrying',
      'retrying',
      'retrying',
      'succeeded',
    ]);
    expect((await handle.describe()).searchAttributes.DeliveryStatus).to.deep.equal(['succeeded']);
  });

  it('honours Retry-After (429 and 503), capped at 6 hours', async () => {
    receiver.respond('/busy', (_request, count) => {
      if (count === 1) return { status: 429, headers: { 'retry-after': '600' } };
      if (count === 2) return { status: 503, headers: { 'retry-after': String(10 * 24 * 3600) } };
      return { status: 200 };
    });
    const { handle } = await deliver('/busy');
    expect((await worker.runUntil(handle.result())).attempts).to.equal(3);
    const [first, second, third] = attemptTimes(await handle.fetchHistory());
    expect(second - first, 'after Retry-After: 600').to.be.within(600 * SECOND, 602 * SECOND);
    expect(third - second, 'after a 10-day Retry-After').to.be.within(6 * HOUR, 6 * HOUR + 2 * SECOND);
  });

  it('stops after a 410 and deactivates the endpoint', async () => {
    receiver.respond('/gone', () => ({ status: 410 }));
    const { config, handle } = await deliver('/gone');
    expect(await worker.runUntil(handle.result())).to.deep.equal({
      status: 'failed',
      attempts: 1,
      end: 'gone',
      lastHttpStatus: 410,
    });
    const read = await api.get(`/merchants/${tenant.merchant_id}/webhook-configs/${config.id}`, {
      key: tenant.merchant_secret_key,
    });
    expect(read.body.is_active).to.equal(false);
  });

  it('treats other 4xx like 5xx: retried on the schedule', async () => {
    receiver.respond('/misconfigured', (_request, count) => ({ status: count < 3 ? 401 : 200 }));
    const { handle } = await deliver('/misconfigured');
    expect(await worker.runUntil(handle.result())).to.deep.include({ status: 'succeeded', attempts: 3 });
  });

  it('makes a single attempt for a manual delivery', async () => {
    receiver.respond('/manual', () => ({ status: 500 }));
    const { event, handle } = await deliver('/manual', { trigger: 'manual' });
    expect(await worker.runUntil(handle.result())).to.deep.equal({
      status: 'failed',
      attempts: 1,
      end: 'exhausted',
      lastHttpStatus: 500,
    });
    const [row] = await deliveryRows('event_id = ?', [event.id]);
    expect(row).to.include({ trigger: 'manual', status: 'failed', next_retry_at: null });
  });

  it('ends failed, without sending, when the endpoint was disabled between attempts', async () => {
    receiver.respond('/disabled', () => ({ status: 500 }));
    const { config, event, handle } = await deliver('/disabled');
    const result = await worker.runUntil(async () => {
      await receiver.waitFor((all) => all.length >= 1);
      await api.patch(`/merchants/${tenant.merchant_id}/webhook-configs/${config.id}`, {
        key: tenant.merchant_secret_key,
        body: { is_active: false },
      });
      return handle.result();
    });
    expect(result).to.deep.equal({ status: 'failed', attempts: 2, end: 'endpoint_disabled', lastHttpStatus: null });
    expect(receiver.requests).to.have.length(1);
    const rows = await deliveryRows('event_id = ?', [event.id]);
    expect(rows[1]).to.include({ status: 'failed', error: 'endpoint_disabled', sent_at: null, http_status_code: null });
  });

  it('keeps the signing secret and the payload out of workflow history (ids only)', async () => {
    const marker = `card-holder-${Date.now()}`;
    const { config, event, handle } = await deliver('/hook', { object: { id: 'tx_private', customer_name: marker } });
    await worker.runUntil(handle.result());
    expect(receiver.requests[0].body).to.include(marker);
    const history = historyText(await handle.fetchHistory());
    expect(history).to.include(event.id).and.include(config.id);
    for (const secret of [
      config.secret,
      config.secret.slice(6),
      Buffer.from(config.secret.slice(6), 'base64').toString('hex'),
      marker,
    ]) {
      expect(history).not.to.include(secret);
    }
  });
});
