/**
 * A pending pix charge with no provider webhook expires by the settlement workflow's own timer (or is canceled
 * when an operator cancels that workflow). The time-skipping
 * test server jumps the hour; the transaction is a real pending pix created through the API (with no webhook
 * endpoint at the sandbox, so nothing but the timer can settle it), and the activities write the stack's database.
 */
import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { asyncSettlementWorkflow } from '../../workflows/transaction';
import { useTimeSkipping, stackWorker } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/connectors';
import { stack } from '../helpers/stack';
import { cascade, charge, providerReferenceOf } from '../helpers/transactions';
import { control } from '../helpers/sandbox';

describe('asyncSettlementWorkflow (time-skipping test server)', () => {
  const taskQueue = 'test-pix-expiry';
  const server = useTimeSkipping();

  /** A real pending pix (no webhook endpoint at the sandbox: nothing but the workflow settles it). */
  async function pendingPix(slug = 'provider_b') {
    const tenant = await createTenant();
    await cascade(tenant, [slug], { webhooks: false });
    const res = await charge(tenant, {
      payment_method: 'pix',
      charge_type: 'payment',
      country: 'BR',
      amount: 4990,
      currency: 'BRL',
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('pending');
    return { tenant, tx: res.body.data };
  }

  it('an operator cancelling the settlement workflow cancels the unpaid charge: status canceled, transaction.canceled', async () => {
    const { tenant, tx } = await pendingPix();
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle: stack().workflowBundle,
      activities: createActivities({ orm: stack().orm, rateLimitWindowSeconds: 60 }),
    });
    const expiresAt = new Date(Number(await server.env.currentTimeMs()) + 3600 * 1000).toISOString();
    const handle = await server.env.client.workflow.start(asyncSettlementWorkflow, {
      workflowId: `test-settlement-cancel-${tx.id}`,
      taskQueue,
      args: [{ transactionId: tx.id, amount: 4990, expiresAt }],
    });
    const result = await worker.runUntil(async () => {
      // Let the workflow reach its wait before the cancel request arrives.
      while ((await handle.fetchHistory()).events!.length < 5) await new Promise((r) => setTimeout(r, 50));
      await handle.cancel();
      return handle.result();
    });
    expect(result).to.deep.equal({ transactionId: tx.id, status: 'canceled' });
    expect((await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data.status).to.equal(
      'canceled',
    );
    const events = await rows(`select type from events where merchant_id = ? and data->>'id' = ?`, [
      tenant.merchant_id,
      tx.id,
    ]);
    expect(events.map((e) => e.type)).to.include('transaction.canceled');
  });

  it('expires a pending pix at its expires_at with no webhook: status expired, order canceled, transaction.expired recorded', async () => {
    const { tenant, tx } = await pendingPix();
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle: stack().workflowBundle,
      activities: createActivities({ orm: stack().orm, rateLimitWindowSeconds: 60 }),
    });
    // An hour from the test server's clock (it only moves forward); the workflow sleeps until then.
    const expiresAt = new Date(Number(await server.env.currentTimeMs()) + 3600 * 1000).toISOString();
    const handle = await server.env.client.workflow.start(asyncSettlementWorkflow, {
      workflowId: `test-settlement-${tx.id}`,
      taskQueue,
      args: [{ transactionId: tx.id, amount: 4990, expiresAt }],
    });
    expect(await worker.runUntil(handle.result())).to.deep.equal({ transactionId: tx.id, status: 'expired' });

    const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(read.status).to.equal('expired');
    const order = (await api.get(`/orders/${tx.order_id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(order.status_history.map((h: any) => [h.to_status, h.triggered_by]).at(-1)).to.deep.equal([
      'canceled',
      'system',
    ]);
    const events = await rows(`select type from events where merchant_id = ? and data->>'id' = ?`, [
      tenant.merchant_id,
      tx.id,
    ]);
    expect(events.map((e) => e.type)).to.include('transaction.expired');
  });

  it('a pending pix the buyer paid is found by asking the provider, without any webhook: authorized, order authorized', async () => {
    const { tenant, tx } = await pendingPix('provider_c');
    const reference = await providerReferenceOf(tenant, tx.id);
    const paid = await control('POST', `/payments/${reference}/settle`, {});
    expect(paid.status, JSON.stringify(paid.body)).to.be.lessThan(300);
    const worker = await stackWorker(server.env, `${taskQueue}-vault`);
    const expiresAt = new Date(Number(await server.env.currentTimeMs()) + 24 * 3600 * 1000).toISOString();
    const handle = await server.env.client.workflow.start(asyncSettlementWorkflow, {
      workflowId: `test-settlement-poll-${tx.id}`,
      taskQueue: `${taskQueue}-vault`,
      args: [{ transactionId: tx.id, amount: 4990, expiresAt }],
    });
    expect(await worker.runUntil(handle.result())).to.deep.equal({ transactionId: tx.id, status: 'authorized' });
    // Asked a minute after the charge went pending (its first wait), not at the expiry a day later.
    const events = (await handle.fetchHistory()).events!;
    const waits = events.filter((e) => e.timerStartedEventAttributes);
    expect(waits.map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds))).to.deep.equal([60]);
    const asks = events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'checkPendingCharge',
    );
    expect(asks).to.have.length(1);
    const read = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(read).to.include({ status: 'authorized', amount_captured: 4990 });
    const order = (await api.get(`/orders/${tx.order_id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(order.status).to.equal('authorized');
  });

  it('a pending pix is asked about once more at its deadline before it expires: paid just before, it is authorized', async () => {
    const { tenant, tx } = await pendingPix('provider_c');
    const reference = await providerReferenceOf(tenant, tx.id);
    const worker = await stackWorker(server.env, `${taskQueue}-vault`);
    // A deadline 30 s away: the first ask (a minute on) would come after it, so the one at the deadline decides.
    const expiresAt = new Date(Number(await server.env.currentTimeMs()) + 30 * 1000).toISOString();
    const paid = await control('POST', `/payments/${reference}/settle`, {});
    expect(paid.status, JSON.stringify(paid.body)).to.be.lessThan(300);
    const handle = await server.env.client.workflow.start(asyncSettlementWorkflow, {
      workflowId: `test-settlement-deadline-${tx.id}`,
      taskQueue: `${taskQueue}-vault`,
      args: [{ transactionId: tx.id, amount: 4990, expiresAt }],
    });
    expect(await worker.runUntil(handle.result())).to.deep.equal({ transactionId: tx.id, status: 'authorized' });
  });
});
