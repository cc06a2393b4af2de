/**
 * Refunds whose outcomes arrive later (an asynchronous provider: the refund answers pending, its webhook decides):
 * every refund that succeeds is announced exactly once, also when another refund of the same transaction fails
 * after it; a failed refund returns the transaction to where the other refunds leave it, with only
 * transaction.refund_failed. The order of the provider's verdicts is driven through the sandbox's control API
 * (webhook endpoint registered only once both refunds are pending).
 */
import { expect } from 'chai';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { rows } from '../helpers/connectors';
import { control } from '../helpers/sandbox';
import { expectWrapped } from '../helpers/envelope';
import { cardCharge, cardToken, cascade, charge, type CascadeConnector } from '../helpers/transactions';

const BRL = { currency: 'BRL', country: 'BR' };

/** Transaction events (data.object the transaction) and refund events (the refund) of one transaction, in order. */
const eventsOf = async (txId: string): Promise<string[]> =>
  (
    await rows(`select type from events where data->>'id' = ? or data->>'transaction_id' = ? order by seq`, [
      txId,
      txId,
    ])
  ).map((e) => e.type);

/** The provider's id of a refund (what the sandbox's control API names it by). */
async function providerRefundId(refundId: string): Promise<string> {
  for (let i = 0; i < 50; i += 1) {
    const [row] = await rows(`select provider_reference from refunds where id = ?`, [refundId]);
    if (row?.provider_reference) return row.provider_reference;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`refund ${refundId} has no provider reference`);
}

async function waitForRefund(tenant: Tenant, txId: string, refundId: string, status: string): Promise<any> {
  for (let i = 0; i < 75; i += 1) {
    const res = await api.get(`/transactions/${txId}/refunds/${refundId}`, { key: tenant.merchant_secret_key });
    if (res.body.data?.status === status) return res.body.data;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`refund ${refundId} never became ${status}`);
}

async function waitForTransactionStatus(tenant: Tenant, txId: string, status: string): Promise<any> {
  for (let i = 0; i < 75; i += 1) {
    const res = await api.get(`/transactions/${txId}`, { key: tenant.merchant_secret_key });
    if (res.body.data?.status === status) return res.body.data;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`transaction ${txId} never became ${status}`);
}

/** Registers the connector's webhook endpoint at the sandbox again (the cascade was made without one). */
async function deliverWebhooks(connector: CascadeConnector): Promise<void> {
  const registered = await control('POST', '/webhook-endpoints', {
    provider: connector.slug,
    credentials: connector.credentials,
    url: connector.webhookUrl,
    secret: connector.webhookSecret,
  });
  expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
}

describe('Refunds decided later by the provider', () => {
  let tenant: Tenant;
  let connector: CascadeConnector;
  // A connector per test: its webhook endpoint is registered only once the test's refunds are pending.
  beforeEach(async () => {
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_b'], { webhooks: false });
  });
  const refund = async (txId: string, amount: number) =>
    expectWrapped(
      await api.post(`/transactions/${txId}/refunds`, { key: tenant.merchant_secret_key, body: { amount } }),
      201,
    );

  it('a refund that succeeds while another is pending is announced once, also when the other then fails', async () => {
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant), BRL))).body.data;
    expect(tx.status, JSON.stringify(tx.timeline)).to.equal('authorized');
    const a = await refund(tx.id, 500);
    const b = await refund(tx.id, 261);
    expect([a.status, b.status]).to.deep.equal(['pending', 'pending']);
    await deliverWebhooks(connector);

    const succeeded = await control('POST', `/refunds/${await providerRefundId(a.id)}/succeed`);
    expect(succeeded.status, JSON.stringify(succeeded.body)).to.be.lessThan(300);
    await waitForRefund(tenant, tx.id, a.id, 'succeeded');
    const failed = await control('POST', `/refunds/${await providerRefundId(b.id)}/fail`);
    expect(failed.status, JSON.stringify(failed.body)).to.be.lessThan(300);
    await waitForRefund(tenant, tx.id, b.id, 'failed');

    const now = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(now).to.include({ status: 'partially_refunded', amount_refunded: 500 });
    const events = await eventsOf(tx.id);
    expect(events.filter((t) => t === 'transaction.partially_refunded')).to.have.length(1);
    expect(events.filter((t) => t === 'transaction.refund_failed')).to.have.length(1);
    expect(events.filter((t) => t === 'transaction.authorized')).to.have.length(1);
    expect(events.at(-1)).to.equal('transaction.partially_refunded');
  });

  it('a refund that fails while another is pending records only transaction.refund_failed; the success that follows is announced once', async () => {
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant), BRL))).body.data;
    const a = await refund(tx.id, 500);
    const b = await refund(tx.id, 261);
    await deliverWebhooks(connector);

    expect((await control('POST', `/refunds/${await providerRefundId(b.id)}/fail`)).status).to.be.lessThan(300);
    await waitForRefund(tenant, tx.id, b.id, 'failed');
    expect((await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data.status).to.equal(
      'refund_pending',
    );
    expect((await control('POST', `/refunds/${await providerRefundId(a.id)}/succeed`)).status).to.be.lessThan(300);
    await waitForRefund(tenant, tx.id, a.id, 'succeeded');

    const now = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(now).to.include({ status: 'partially_refunded', amount_refunded: 500 });
    const events = await eventsOf(tx.id);
    expect(events.filter((t) => t === 'transaction.partially_refunded')).to.have.length(1);
    expect(events.filter((t) => t === 'transaction.refund_failed')).to.have.length(1);
  });

  it('two pending refunds that both fail return the transaction to authorized with only their transaction.refund_failed', async () => {
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant), BRL))).body.data;
    const before = await eventsOf(tx.id);
    const a = await refund(tx.id, 161);
    const b = await refund(tx.id, 261);
    await deliverWebhooks(connector);
    for (const r of [a, b]) {
      expect((await control('POST', `/refunds/${await providerRefundId(r.id)}/fail`)).status).to.be.lessThan(300);
      await waitForRefund(tenant, tx.id, r.id, 'failed');
    }
    const now = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(now).to.include({ status: 'authorized', amount_refunded: 0 });
    expect((await eventsOf(tx.id)).slice(before.length).sort()).to.deep.equal(
      [
        'transaction.refund_created',
        'transaction.refund_created',
        'transaction.refund_pending',
        'transaction.refund_failed',
        'transaction.refund_failed',
      ].sort(),
    );
  });

  it('a refund that succeeds during a dispute is announced once the dispute is won', async () => {
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant), BRL))).body.data;
    const a = await refund(tx.id, 500);
    await deliverWebhooks(connector);
    const reference = (await rows(`select provider_reference from transactions where id = ?`, [tx.id]))[0]
      .provider_reference;
    expect((await control('POST', `/payments/${reference}/dispute`, { stage: 'opened' })).status).to.be.lessThan(300);
    await waitForTransactionStatus(tenant, tx.id, 'charged_back');
    expect((await control('POST', `/refunds/${await providerRefundId(a.id)}/succeed`)).status).to.be.lessThan(300);
    await waitForRefund(tenant, tx.id, a.id, 'succeeded');
    expect((await control('POST', `/payments/${reference}/dispute`, { stage: 'won' })).status).to.be.lessThan(300);
    const now = await waitForTransactionStatus(tenant, tx.id, 'partially_refunded');
    expect(now).to.include({ status: 'partially_refunded', amount_refunded: 500 });
    const events = await eventsOf(tx.id);
    expect(events.filter((t) => t === 'transaction.partially_refunded')).to.have.length(1);
    expect(events.filter((t) => t === 'transaction.dispute_won')).to.have.length(1);
    expect(events.filter((t) => t === 'transaction.authorized')).to.have.length(1);
  });
});
