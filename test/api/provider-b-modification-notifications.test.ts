/**
 * Adyen cannot be read, so a capture or void whose answer was lost is settled by its notification: CAPTURE (success
 * true) captures, CAPTURE_FAILED or CAPTURE (success false) refuses the capture (back to pre_authorized),
 * CANCELLATION (success true) voids. Until it arrives the capture stays capture_pending, as any unknown answer.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { control } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  providerReferenceOf,
  type CascadeConnector,
} from '../helpers/transactions';

describe('Adyen: a capture or void whose answer was lost is finished by its notification', () => {
  let app: RunningApi;
  let tenant: Tenant;
  let connector: CascadeConnector;
  before(async () => {
    // A short wait, so the answer shows the operation while it is still unknown.
    app = await startApi({ ...stack().config, workflowWaitMs: 1_000 }, 0);
  });
  beforeEach(async () => {
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_b'], { webhooks: false });
  });
  after(async () => {
    await app?.stop();
  });

  async function preAuthorized(): Promise<{ id: string; psp: string }> {
    const res = await charge(
      tenant,
      cardCharge(await cardToken(tenant), { capture: false, currency: 'BRL', country: 'BR' }),
    );
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('pre_authorized');
    return { id: res.body.data.id, psp: await providerReferenceOf(tenant, res.body.data.id) };
  }

  /** The operation answered 5xx after Adyen did it: unknown, and Adyen has no read. */
  async function lost(kind: 'capture' | 'void', transactionId: string) {
    const forced = await control('POST', '/overrides', {
      provider: 'provider_b',
      credentials: connector.credentials,
      operation: kind,
      scenario: 'approved_server_error',
      times: 1,
    });
    expect(forced.status, JSON.stringify(forced.body)).to.equal(201);
    const res = await api.post(`/transactions/${transactionId}/${kind}`, {
      key: tenant.merchant_secret_key,
      headers: { 'idempotency-key': randomUUID() },
      baseUrl: app.url,
    });
    expect(res.status, res.text).to.equal(202);
  }

  /** Adyen's notification of a modification (its own pspReference) of the payment `originalReference`. */
  async function notify(eventCode: string, success: boolean, tx: { id: string; psp: string }) {
    const secret = JSON.parse(connector.webhookSecret) as { username: string; password: string };
    const item = {
      amount: { value: 1500, currency: 'BRL' },
      eventCode,
      eventDate: new Date().toISOString(),
      merchantAccountCode: connector.credentials.merchant_account,
      merchantReference: tx.id,
      originalReference: tx.psp,
      pspReference: `MOD${randomUUID().replace(/-/g, '').slice(0, 13).toUpperCase()}`,
      reason: success ? '' : 'Insufficient balance',
      success: String(success),
    };
    const response = await fetch(connector.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${secret.username}:${secret.password}`).toString('base64')}`,
      },
      body: JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] }),
    });
    expect(response.status).to.be.lessThan(300);
  }

  /** The transaction once `done` holds, read once a second (the next lookup comes within seconds). */
  async function once(transactionId: string, done: (tx: any) => boolean): Promise<any> {
    let tx: any;
    for (let reads = 0; reads < 20; reads += 1) {
      tx = (await api.get(`/transactions/${transactionId}`, { key: tenant.merchant_secret_key })).body.data;
      if (done(tx)) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    return tx;
  }

  it('a CAPTURE notification captures the transaction left capture_pending', async function () {
    this.timeout(60_000);
    const tx = await preAuthorized();
    await lost('capture', tx.id);
    expect((await once(tx.id, () => true)).status).to.equal('capture_pending');
    await notify('CAPTURE', true, tx);
    const settled = await once(tx.id, (t) => t.status !== 'capture_pending');
    expect(settled).to.include({ status: 'authorized', amount_captured: 1500 });
  });

  it('a CAPTURE_FAILED notification refuses the capture: back to pre_authorized', async function () {
    this.timeout(60_000);
    const tx = await preAuthorized();
    await lost('capture', tx.id);
    await notify('CAPTURE_FAILED', true, tx);
    const settled = await once(tx.id, (t) => t.status !== 'capture_pending');
    expect(settled).to.include({ status: 'pre_authorized', amount_captured: 0 });
  });

  it('a CANCELLATION notification voids the transaction', async function () {
    this.timeout(60_000);
    const tx = await preAuthorized();
    await lost('void', tx.id);
    await notify('CANCELLATION', true, tx);
    const settled = await once(tx.id, (t) => t.status === 'voided');
    expect(settled.status).to.equal('voided');
  });
});
