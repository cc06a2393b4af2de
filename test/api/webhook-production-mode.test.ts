/**
 * What only production mode enforces: https-only public URLs at configuration time, and the SSRF guard on every
 * delivery attempt (private, loopback, link-local and metadata addresses refused, resolved names included).
 */
import { expect } from 'chai';
import { startApi, type RunningApi } from '../../api/server';
import { createWebhookActivities } from '../../activities/webhooks';
import { webhookSettingsOf } from '../../activities/webhooks/deliver';
import { deliveryWorkflowId } from '../../workflows/webhook-delivery.shared';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectFieldErrors } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { createConfig, deliveryRows, recordTestEvent, startReceiver, type Receiver } from '../helpers/webhooks';

describe('Webhooks in production mode', () => {
  let production: RunningApi;
  let tenant: Tenant;
  before(async () => {
    production = await startApi({ ...stack().config, env: 'production' }, 0);
  });
  after(async () => {
    await production?.stop();
  });
  beforeEach(async () => {
    tenant = await createTenant();
  });

  const post = (url: string) =>
    api.post(`/merchants/${tenant.merchant_id}/webhook-configs`, {
      key: tenant.merchant_secret_key,
      body: { url },
      baseUrl: production.url,
    });

  it('accepts only https URLs to public hosts when configuring an endpoint', async () => {
    expect((await post('https://hooks.example.com/switchyard')).status).to.equal(201);
    for (const url of [
      'http://127.0.0.1:4000/hook',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://api.localhost/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://172.20.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[fd00:ec2::254]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://0.0.0.0/hook',
      'https://100.64.0.1/hook',
    ])
      expectFieldErrors(await post(url), ['url']);
  });

  describe('deliverWebhook with production settings', () => {
    let receiver: Receiver;
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(async () => {
      await receiver.close();
    });

    it('refuses to connect to a loopback receiver (by address or by the name localhost) and records why', async () => {
      const activities = createWebhookActivities({
        orm: stack().orm,
        webhooks: webhookSettingsOf({ ...stack().config, env: 'production' }),
      });
      for (const url of [receiver.url('/hook'), receiver.url('/hook').replace('127.0.0.1', 'localhost')]) {
        const config = await createConfig(tenant, { url });
        const event = await recordTestEvent(tenant, 'transaction.created', { id: 'tx_ssrf' }, { fannedOut: true });
        const workflowId = deliveryWorkflowId(event.id, config.id);
        const last = await activities.deliverWebhook({
          eventId: event.id,
          configId: config.id,
          workflowId,
          trigger: 'automatic',
          attempt: 1,
          next: null,
        });
        expect(last).to.deep.equal({ outcome: 'failed', waitMs: null, end: 'exhausted', httpStatus: null });
        const [row] = await deliveryRows('event_id = ?', [event.id]);
        expect(row).to.include({ status: 'failed', error: 'blocked_address', http_status_code: null, sent_at: null });
        const read = await api.get(`/merchants/${tenant.merchant_id}/webhook-configs/${config.id}`, {
          key: tenant.merchant_secret_key,
        });
        expect(read.body.last_triggered_at).to.equal(null);
      }
      expect(receiver.requests).to.have.length(0);
    });

    it('delivers to the same receiver in test mode (the guard is what refused it)', async () => {
      const activities = createWebhookActivities({ orm: stack().orm, webhooks: webhookSettingsOf(stack().config) });
      const config = await createConfig(tenant, { url: receiver.url('/hook') });
      const event = await recordTestEvent(tenant, 'transaction.created', { id: 'tx_ok' }, { fannedOut: true });
      const result = await activities.deliverWebhook({
        eventId: event.id,
        configId: config.id,
        workflowId: deliveryWorkflowId(event.id, config.id),
        trigger: 'automatic',
        attempt: 1,
        next: null,
      });
      expect(result.outcome).to.equal('succeeded');
      expect(receiver.requests).to.have.length(1);
    });
  });
});
