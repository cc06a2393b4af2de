/**
 * Asynchronous outcomes: pix pending with payment instructions, settled or expired by the provider's webhook
 * (received at the connector's webhook_url, verified, deduplicated, signalled to the settlement workflow),
 * refund results and disputes by webhook, and the inbound endpoint's own checks.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectWrapped } from '../helpers/envelope';
import { control } from '../helpers/sandbox';
import { rows } from '../helpers/connectors';
import { stack } from '../helpers/stack';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  providerReferenceOf,
  waitForTransaction,
  type CascadeConnector,
} from '../helpers/transactions';

const pix = (amount = 4990) => ({
  payment_method: 'pix',
  charge_type: 'payment',
  country: 'BR',
  amount,
  currency: 'BRL',
});

describe('pix and boleto: pending, then the provider webhook', () => {
  let tenant: Tenant;
  let connectors: CascadeConnector[];
  before(async () => {
    tenant = await createTenant();
    connectors = await cascade(tenant, ['provider_b']);
  });

  it('answers 201 pending with payment_instructions and a pending first attempt; the order is pending', async () => {
    const tx = expectWrapped(await charge(tenant, pix()), 201);
    expect(tx.status).to.equal('pending');
    expect(tx.payment_instructions).to.include({ type: 'pix' });
    expect(tx.payment_instructions.qr_code_text).to.be.a('string');
    expect(tx.payment_instructions.expires_at).to.be.a('string');
    expect(tx.timeline).to.have.length(1);
    expect(tx.timeline[0]).to.include({ status: 'pending', finished_at: null, attempt_number: 1 });
    expect((await api.get(`/orders/${tx.order_id}`, { key: tenant.merchant_secret_key })).body.data.status).to.equal(
      'pending',
    );
  });

  it('settles by webhook: authorized, order history pending → authorized triggered_by psp_webhook', async () => {
    const tx = (await charge(tenant, pix())).body.data;
    const settled = await control('POST', `/payments/${await providerReferenceOf(tenant, tx.id)}/settle`);
    expect(settled.status, JSON.stringify(settled.body)).to.be.lessThan(300);
    const done = await waitForTransaction(tenant, tx.id, (t) => t.status !== 'pending');
    expect(done).to.include({ status: 'authorized', amount_captured: 4990 });
    const order = (await api.get(`/orders/${tx.order_id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(order.status_history.map((h: any) => [h.from_status, h.to_status, h.triggered_by])).to.deep.equal([
      [null, 'pending', 'api'],
      ['pending', 'authorized', 'psp_webhook'],
    ]);
  });

  it('expires by webhook when the provider lets it lapse: expired, order canceled', async () => {
    const tx = (await charge(tenant, pix())).body.data;
    await control('POST', `/payments/${await providerReferenceOf(tenant, tx.id)}/expire`);
    const done = await waitForTransaction(tenant, tx.id, (t) => t.status !== 'pending');
    expect(done.status).to.equal('expired');
  });

  it('applies a duplicate provider event once (two deliveries of one event)', async () => {
    // A second endpoint for the same account and URL: the sandbox delivers every event twice.
    const [connector] = connectors;
    const extra = await control('POST', '/webhook-endpoints', {
      provider: 'provider_b',
      credentials: connector.credentials,
      url: connector.webhookUrl,
      secret: connector.webhookSecret,
    });
    try {
      const tx = (await charge(tenant, pix())).body.data;
      await control('POST', `/payments/${await providerReferenceOf(tenant, tx.id)}/settle`);
      await waitForTransaction(tenant, tx.id, (t) => t.status !== 'pending');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const events = await rows(`select type from events where merchant_id = ? and data->>'id' = ? order by seq`, [
        tenant.merchant_id,
        tx.id,
      ]);
      expect(events.map((e) => e.type)).to.deep.equal([
        'transaction.created',
        'transaction.pending',
        'transaction.authorized',
      ]);
      const received = await rows('select count(*)::int as n from provider_webhook_events where connector_id = ?', [
        connector.id,
      ]);
      expect(received[0].n).to.be.greaterThan(0);
    } finally {
      await control('DELETE', `/webhook-endpoints/${extra.body.id}`);
    }
  });

  it('settles a pending refund by webhook: refund succeeded, transaction partially_refunded', async () => {
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant), { currency: 'BRL', country: 'BR' }))).body
      .data;
    const refund = (
      await api.post(`/transactions/${tx.id}/refunds`, { key: tenant.merchant_secret_key, body: { amount: 500 } })
    ).body.data;
    // Pending at the provider; its webhook may already have settled it by the time the response is read.
    expect(refund.status).to.be.oneOf(['pending', 'succeeded']);
    const done = await waitForTransaction(tenant, tx.id, (t) => t.status !== 'refund_pending');
    expect(done).to.include({ status: 'partially_refunded', amount_refunded: 500 });
    const after = (await api.get(`/transactions/${tx.id}/refunds/${refund.id}`, { key: tenant.merchant_secret_key }))
      .body.data;
    expect(after.status).to.equal('succeeded');
  });

  it('moves a captured card transaction to charged_back on a dispute webhook', async () => {
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant), { currency: 'BRL', country: 'BR' }))).body
      .data;
    const opened = await control('POST', `/payments/${await providerReferenceOf(tenant, tx.id)}/dispute`, {
      stage: 'opened',
    });
    expect(opened.status, JSON.stringify(opened.body)).to.be.lessThan(300);
    const done = await waitForTransaction(tenant, tx.id, (t) => t.status !== 'authorized');
    expect(done.status).to.equal('charged_back');
    const events = await rows(`select type from events where merchant_id = ? and data->>'id' = ?`, [
      tenant.merchant_id,
      tx.id,
    ]);
    expect(events.map((e) => e.type)).to.include.members(['transaction.dispute_created', 'transaction.charged_back']);
  });
});

describe('POST /api/v1/webhooks/inbound/:connector_id', () => {
  it('refuses a wrong token or a bad signature with 401 and applies nothing', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const post = (url: string, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{"id":"evt_1","type":"payment_intent.succeeded"}',
      });
    expect((await post(`${stack().url}/api/v1/webhooks/inbound/${connector.id}?token=nope`)).status).to.equal(401);
    expect(
      (
        await post(connector.webhookUrl, {
          'webhook-id': 'x',
          'webhook-timestamp': '1',
          'webhook-signature': 'v1,AAAA',
        })
      ).status,
    ).to.equal(401);
    const received = await rows('select count(*)::int as n from provider_webhook_events where connector_id = ?', [
      connector.id,
    ]);
    expect(received[0].n).to.equal(0);
  });
});
