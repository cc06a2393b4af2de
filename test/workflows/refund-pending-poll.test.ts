/**
 * A refund the provider answered "pending" (an asynchronous provider: its verdict comes by webhook) must not wait
 * for that webhook alone: the refund is looked up at the provider under its own key within a minute, then with
 * growing waits, until it is decided — by the lookup, or by the webhook, which ends the polling. Time-skipping
 * test server; the transaction is a real charge at the sandbox, the activities write the stack's database, and the
 * provider's verdict reaches the stack's real inbound-webhook endpoint.
 */
import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import { newId } from '../../domain/platform/ids';
import { SEARCH_ATTRIBUTE_KEYS } from '../../workflows/definitions';
import type { OperationInput } from '../../workflows/lib/transaction-types';
import { transactionOperationWorkflow } from '../../workflows/transaction-operation';
import { operationWorkflowId, pendingRefundWorkflowId } from '../../workflows/transaction-operation.shared';
import { useTimeSkipping, stackWorker } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/connectors';
import { accountOf, control, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

describe('Refunds left pending at the provider (time-skipping test server)', () => {
  const taskQueue = 'test-refund-pending-poll';
  const server = useTimeSkipping();

  it('a pending refund is looked up within a minute, then with growing waits, until its result arrives; announced once', async () => {
    const tenant = await createTenant();
    // No webhook endpoint at first: the provider's verdict does not arrive by itself.
    const [connector] = await cascade(tenant, ['provider_b'], { webhooks: false });
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant), { currency: 'BRL', country: 'BR' }))).body
      .data;
    expect(tx.status, JSON.stringify(tx.timeline)).to.equal('authorized');
    const worker = await stackWorker(server.env, taskQueue);
    const refundId = newId('ref');
    const operation: OperationInput = {
      kind: 'refund',
      operationId: refundId,
      transactionId: tx.id,
      amount: 500,
      refundId,
    };
    // The id the API gives a refund's operation (`<kind>-<tx id>-<operation id>`), not a made-up one.
    const handle = await server.env.client.workflow.start(transactionOperationWorkflow, {
      workflowId: operationWorkflowId(operation),
      taskQueue,
      args: [operation],
      typedSearchAttributes: [{ key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: tenant.merchant_id }],
    });
    const key = tenant.merchant_secret_key;
    const account = await accountOf('provider_b', connector.credentials);
    const poll = server.env.client.workflow.getHandle(pendingRefundWorkflowId(refundId));
    // One run of the worker for the whole test (a worker runs once).
    await worker.runUntil(async () => {
      // The refund request is answered as soon as the provider says pending (the API does not wait for the polls).
      expect(await handle.result()).to.deep.equal({ ok: true, outcome: 'pending' });
      await server.env.sleep('10 minutes');
      expect((await api.get(`/transactions/${tx.id}/refunds/${refundId}`, { key })).body.data.status).to.equal(
        'pending',
      );
      const history = (await poll.fetchHistory()).events!;
      const waits = history
        .filter((e) => e.timerStartedEventAttributes)
        .map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds));
      expect(waits.slice(0, 3)).to.deep.equal([60, 120, 300]);
      const asks = history.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'checkPendingRefund',
      );
      expect(asks.length).to.be.at.least(3);
      // Found by merchant, as the refund's operation is.
      const described = await poll.describe();
      expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.MerchantId)).to.equal(tenant.merchant_id);
      // provider_b (Adyen) offers no read of a refund: the asks reach no provider (its REFUND notification is the
      // only source; providers with a read settle by the ask: test/api/connector-lookups-by-reference.test.ts), and
      // the refund is never sent again.
      expect(await ledger({ provider: 'provider_b', account, operation: 'lookup' })).to.have.length(0);
      expect(
        (await ledger({ provider: 'provider_b', account, operation: 'refund' })).filter((e) => !e.replayed),
      ).to.have.length(1);

      // The provider's verdict arrives (its webhook endpoint is back): the next ask finds the refund decided, stops.
      const registered = await control('POST', '/webhook-endpoints', {
        provider: 'provider_b',
        credentials: connector.credentials,
        url: connector.webhookUrl,
        secret: connector.webhookSecret,
      });
      expect(registered.status).to.equal(201);
      const [refund] = await rows(`select provider_reference from refunds where id = ?`, [refundId]);
      expect((await control('POST', `/refunds/${refund.provider_reference}/succeed`)).status).to.be.lessThan(300);
      expect(await poll.result()).to.equal('succeeded');
    });
    expect((await api.get(`/transactions/${tx.id}/refunds/${refundId}`, { key })).body.data.status).to.equal(
      'succeeded',
    );
    expect((await api.get(`/transactions/${tx.id}`, { key })).body.data).to.include({
      status: 'partially_refunded',
      amount_refunded: 500,
    });
    const events = await rows(`select type from events where data->>'id' = ?`, [tx.id]);
    expect(events.filter((e) => e.type === 'transaction.partially_refunded')).to.have.length(1);

    // Both histories replay against the current code (the refund's operation and its polling).
    const replays = Worker.runReplayHistories({ workflowBundle: stack().workflowBundle, replayName: 'refund-polls' }, [
      { workflowId: handle.workflowId, history: await handle.fetchHistory() },
      { workflowId: poll.workflowId, history: await poll.fetchHistory() },
    ]);
    let replayed = 0;
    for await (const result of replays) {
      expect(result.error, `${result.workflowId}: ${result.error?.message}`).to.equal(undefined);
      replayed += 1;
    }
    expect(replayed).to.equal(2);
  });
});
