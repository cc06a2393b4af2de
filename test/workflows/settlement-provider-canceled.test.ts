/**
 * A pending payment the provider canceled or let expire (no webhook reached us) is found by the settlement
 * workflow's provider read and recorded `expired` — as Stripe's canceled PaymentIntent or Adyen's expired payment
 * would say — not `failed`; its order follows as for any expiry (canceled). Time-skipping test server; the
 * transaction is a real card charge held for review at the sandbox through the API, with no webhook endpoint.
 */
import { expect } from 'chai';
import { asyncSettlementWorkflow } from '../../workflows/transaction';
import { useTimeSkipping, stackWorker } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/connectors';
import { cardCharge, cardToken, cascade, charge, override, providerReferenceOf } from '../helpers/transactions';
import { control } from '../helpers/sandbox';

describe('asyncSettlementWorkflow — a pending payment the provider canceled', () => {
  const taskQueue = 'test-settlement-provider-canceled';
  const server = useTimeSkipping();

  it('a card held for review that the provider canceled unpaid is expired, not failed: order canceled, transaction.expired', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a'], { webhooks: false });
    await override(connector, 'review', 1);
    const res = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('pending');
    const tx = res.body.data;
    const reference = await providerReferenceOf(tenant, tx.id);
    // The provider lets it lapse (a Stripe PaymentIntent then reads canceled); its webhook reaches nobody.
    const lapsed = await control('POST', `/payments/${reference}/expire`, {});
    expect(lapsed.status, JSON.stringify(lapsed.body)).to.be.lessThan(300);

    const worker = await stackWorker(server.env, taskQueue);
    const expiresAt = new Date(Number(await server.env.currentTimeMs()) + 24 * 3600 * 1000).toISOString();
    const handle = await server.env.client.workflow.start(asyncSettlementWorkflow, {
      workflowId: `test-settlement-canceled-${tx.id}`,
      taskQueue,
      args: [{ transactionId: tx.id, amount: tx.amount, expiresAt }],
    });
    expect(await worker.runUntil(handle.result())).to.deep.equal({ transactionId: tx.id, status: 'expired' });

    const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(read).to.include({ status: 'expired', failure_code: 'payment_expired' });
    const order = (await api.get(`/orders/${tx.order_id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(order.status).to.equal('canceled');
    const events = await rows(`select type from events where merchant_id = ? and data->>'id' = ?`, [
      tenant.merchant_id,
      tx.id,
    ]);
    expect(events.map((e) => e.type)).to.include('transaction.expired');
    expect(events.map((e) => e.type)).to.not.include('transaction.failed');
  });
});
