/**
 * The organization Dashboard's inbound-webhook logs of a connector: GET …/webhooks/inbounds lists the authentic
 * deliveries with what became of them (processed, duplicate, ignored, failed), GET …/webhooks/invalid the refused
 * ones with the reason. Metadata only, never the body, a header or the secret; purged by housekeeping.
 */
import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { bearer, createMerchantUser, createOrganizationUser, signIn } from '../helpers/dashboard';
import { cascade, charge, providerReferenceOf, type CascadeConnector } from '../helpers/transactions';
import { control } from '../helpers/sandbox';
import { waitUntil } from '../helpers/webhooks';
import { stack } from '../helpers/stack';
import { settlementWorkflowId } from '../../workflows/transaction.shared';
import { createHousekeepingActivities } from '../../activities/housekeeping';

async function organizationSession(tenant: Tenant): Promise<Record<string, string>> {
  const user = await createOrganizationUser([tenant.organization_id]);
  const { access_token: token } = await signIn('organization', user);
  return bearer(token as string, { 'x-organization-id': tenant.organization_id });
}

/** A provider_a (Standard Webhooks) delivery signed with the connector's secret, or with `secret` when given. */
function sendProviderA(connector: CascadeConnector, body: Record<string, unknown> | string, secret?: string) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const id = `msg_${randomUUID()}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from((secret ?? connector.webhookSecret).replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${raw}`).digest('base64');
  return fetch(connector.webhookUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${signature}`,
    },
    body: raw,
  });
}

const succeeded = (eventId: string, paymentId: string) => ({
  id: eventId,
  type: 'payment_intent.succeeded',
  created: Math.floor(Date.now() / 1000),
  data: { object: { id: paymentId, amount: 100, metadata: {} } },
});

describe('Organization Dashboard connector webhook logs', () => {
  let tenant: Tenant;
  let headers: Record<string, string>;
  let connector: CascadeConnector;
  const inbounds = (query: Record<string, string | number> = {}) =>
    api.get(`/org/connectors/${connector.id}/webhooks/inbounds`, { headers, query });
  const invalid = (query: Record<string, string | number> = {}) =>
    api.get(`/org/connectors/${connector.id}/webhooks/invalid`, { headers, query });

  before(async () => {
    tenant = await createTenant();
    headers = await organizationSession(tenant);
    [connector] = await cascade(tenant, ['provider_a'], { webhooks: false });
  });

  it('lists received webhooks as processed, duplicate and ignored, newest first, with flat meta and no secret', async () => {
    const eventId = `evt_${randomUUID()}`;
    expect((await sendProviderA(connector, succeeded(eventId, 'pi_nothing_of_ours'))).status).to.equal(200);
    expect((await sendProviderA(connector, succeeded(eventId, 'pi_nothing_of_ours'))).status).to.equal(200);
    const unhandled = { id: `evt_${randomUUID()}`, type: 'customer.created', data: { object: { id: 'cus_1' } } };
    expect((await sendProviderA(connector, unhandled)).status).to.equal(200);

    const res = await inbounds();
    expect(res.status, res.text).to.equal(200);
    expect(res.body.meta).to.include({ page: 1, limit: 20, total: 3 });
    expect(res.body.data.map((r: any) => r.status)).to.deep.equal(['ignored', 'duplicate', 'processed']);
    expect(res.body.data[2]).to.have.all.keys([
      'id',
      'status',
      'event_type',
      'provider_event_id',
      'provider_reference',
      'reason',
      'received_at',
    ]);
    expect(res.body.data[2]).to.include({
      event_type: 'payment.succeeded',
      provider_event_id: eventId,
      provider_reference: 'pi_nothing_of_ours',
      reason: null,
    });
    expect(res.body.data[0]).to.include({ event_type: 'customer.created', reason: 'unhandled_event_type' });
    expect(res.text).to.not.include(connector.webhookSecret);

    const onlyDuplicates = await inbounds({ status: 'duplicate' });
    expect(onlyDuplicates.body.data.map((r: any) => r.status)).to.deep.equal(['duplicate']);
    const future = await inbounds({ from: new Date(Date.now() + 60_000).toISOString() });
    expect(future.body.data).to.deep.equal([]);
    const past = await inbounds({ to: new Date(Date.now() - 3_600_000).toISOString() });
    expect(past.body.meta.total).to.equal(0);
    // Refused deliveries are not in this list.
    await sendProviderA(
      connector,
      succeeded(`evt_${randomUUID()}`, 'pi_x'),
      `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    );
    expect((await inbounds()).body.meta.total).to.equal(3);
  });

  it('status filters accept several values, repeated or comma-separated, on both Dashboards', async () => {
    const mine = await createTenant();
    const orgHeaders = await organizationSession(mine);
    const merchantUser = await createMerchantUser(mine.organization_id, [mine.merchant_id]);
    const merchantHeaders = bearer((await signIn('merchant', merchantUser)).access_token as string, {
      'x-merchant-id': mine.merchant_id,
    });
    const [own] = await cascade(mine, ['provider_a'], { webhooks: false });
    const eventId = `evt_${randomUUID()}`;
    await sendProviderA(own, succeeded(eventId, 'pi_nothing_of_ours'));
    await sendProviderA(own, succeeded(eventId, 'pi_nothing_of_ours'));
    await sendProviderA(own, { id: `evt_${randomUUID()}`, type: 'customer.created', data: { object: { id: 'c' } } });

    const lists = [
      { path: `/org/connectors/${own.id}/webhooks/inbounds`, headers: orgHeaders },
      { path: `/merchant/connectors/${own.id}/webhooks/inbounds`, headers: merchantHeaders },
    ];
    for (const { path, headers: sessionHeaders } of lists) {
      for (const status of ['processed,ignored', ['processed', 'ignored']]) {
        const res = await api.get(path, { headers: sessionHeaders, query: { status } });
        expect(res.status, `${path} ${res.text}`).to.equal(200);
        expect(res.body.data.map((r: any) => r.status)).to.deep.equal(['ignored', 'processed']);
        expect(res.body.meta.total).to.equal(2);
      }
      const unknown = await api.get(path, { headers: sessionHeaders, query: { status: 'processed,invalid' } });
      expect(unknown.status, unknown.text).to.equal(400);
    }
  });

  it('lists refused deliveries with their reason: bad signature, malformed body, wrong token, inactive connector', async () => {
    // A tenant of its own: cascade() activates a routing profile, one per merchant.
    const mine = await createTenant();
    const headers = await organizationSession(mine);
    const [own] = await cascade(mine, ['provider_a'], { webhooks: false });
    const forged = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    expect((await sendProviderA(own, succeeded('evt_forged', 'pi_1'), forged)).status).to.equal(401);
    expect((await sendProviderA(own, '["not", "an object"]')).status).to.equal(401);
    const wrongToken = own.webhookUrl.replace(/token=[^&]+/, 'token=wrong');
    expect((await fetch(wrongToken, { method: 'POST', body: '{}' })).status).to.equal(401);
    await rows('update merchant_connectors set is_active = false where id = ?', [own.id]);
    expect((await sendProviderA(own, succeeded('evt_late', 'pi_2'))).status).to.equal(422);

    const res = await api.get(`/org/connectors/${own.id}/webhooks/invalid`, { headers });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.map((r: any) => r.reason)).to.deep.equal([
      'connector_inactive',
      'unknown_connector',
      'malformed_body',
      'bad_signature',
    ]);
    expect(res.body.data[3]).to.have.all.keys(['id', 'reason', 'detail', 'received_at']);
    expect(res.body.data[3].detail).to.equal('Webhook signature mismatch');
    expect(res.body.meta.total).to.equal(4);
    expect(res.text).to.not.include(own.webhookSecret);
    const inbound = await api.get(`/org/connectors/${own.id}/webhooks/inbounds`, { headers });
    expect(inbound.body.meta.total).to.equal(0);
  });

  it('records a delivery whose processing failed as failed (the provider retries it)', async () => {
    const mine = await createTenant();
    const headers = await organizationSession(mine);
    const [pixConnector] = await cascade(mine, ['provider_b']);
    const tx = (
      await charge(mine, {
        payment_method: 'pix',
        charge_type: 'payment',
        country: 'BR',
        amount: 4990,
        currency: 'BRL',
      })
    ).body.data;
    expect(tx.status).to.equal('pending');
    // No settlement workflow to hand the verdict to: the delivery fails with 503 and rolls back.
    await stack().api.deps.temporal.client.workflow.getHandle(settlementWorkflowId(tx.id)).terminate('test');
    await control('POST', `/payments/${await providerReferenceOf(mine, tx.id)}/settle`);
    const failed = await waitUntil(async () => {
      const res = await api.get(`/org/connectors/${pixConnector.id}/webhooks/inbounds`, {
        headers,
        query: { status: 'failed' },
      });
      return res.body.data?.[0];
    });
    expect(failed).to.include({ status: 'failed', reason: 'SETTLEMENT_NOT_READY', event_type: 'payment.succeeded' });
  });

  it('validates the filters (400) and keeps to the organization (404 for another one, 401 for an API key)', async () => {
    expect((await inbounds({ status: 'invalid' })).status).to.equal(400);
    expect((await inbounds({ from: 'yesterday' })).status).to.equal(400);
    const reversed = await invalid({ from: new Date().toISOString(), to: new Date(Date.now() - 1000).toISOString() });
    expect(reversed.status).to.equal(400);
    expect(reversed.body.error.details).to.have.property('to');
    const other = await createTenant();
    const [foreign] = await cascade(other, ['provider_a'], { webhooks: false });
    for (const kind of ['inbounds', 'invalid']) {
      expect((await api.get(`/org/connectors/${foreign.id}/webhooks/${kind}`, { headers })).status).to.equal(404);
      const withKey = await api.get(`/org/connectors/${connector.id}/webhooks/${kind}`, {
        key: tenant.organization_secret_key,
        headers: { 'x-organization-id': tenant.organization_id },
      });
      expect(withKey.status).to.equal(401);
    }
  });

  it('housekeeping purges receipts older than the retention and keeps recent ones', async () => {
    const eventId = `evt_${randomUUID()}`;
    await sendProviderA(connector, succeeded(eventId, 'pi_old'));
    await rows(
      "update provider_webhook_receipts set received_at = now() - interval '31 days' where provider_event_id = ?",
      [eventId],
    );
    const before = (await inbounds()).body.meta.total as number;
    const purged = await createHousekeepingActivities({
      orm: stack().orm,
      rateLimitWindowSeconds: 60,
    }).purgeProviderWebhookReceipts();
    expect(purged).to.be.at.least(1);
    expect((await inbounds()).body.meta.total).to.equal(before - 1);
    expect(await rows('select id from provider_webhook_receipts where provider_event_id = ?', [eventId])).to.deep.equal(
      [],
    );
  });

  it('caps provider-supplied fields, so a hostile payload cannot bloat the log', async () => {
    const longId = `evt_${'x'.repeat(5000)}`;
    expect((await sendProviderA(connector, succeeded(longId, `pi_${'y'.repeat(5000)}`))).status).to.equal(200);
    const [row] = await rows(
      'select char_length(provider_event_id) as id_length, char_length(provider_reference) as ref_length from provider_webhook_receipts where connector_id = ? order by received_at desc limit 1',
      [connector.id],
    );
    expect(row).to.deep.equal({ id_length: 200, ref_length: 200 });
  });
});
