/**
 * A provider call whose activity fails on every try (here: a worker started without vault settings, so
 * attemptCharge / providerOperation throw before reaching the provider) must not leave a transaction stuck in
 * pending. The charge does not cascade — another connector could charge the customer a second time when the first
 * call's outcome is unknown — and fails once its resolution's lookups could not tell either; a capture stays capture_pending until a lookup under its key says. The
 * time-skipping server skips the retry backoff; the activities write the stack's real database.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { UNRESOLVED_PROVIDER_CALL } from '../../workflows/lib/transaction-types';
import { buildTransactionInput } from '../../api/modules/transactions/transaction-request.service';
import { transactionWorkflow } from '../../workflows/transaction';
import { transactionWorkflowId } from '../../workflows/transaction.shared';
import { transactionOperationWorkflow } from '../../workflows/transaction-operation';
import { useTimeSkipping, stackWorker } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { accountOf, control, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';

/** A worker started without vault settings: it cannot read cards or credentials, so every provider activity try throws. */
const workerWithoutVaultOn = (server: ReturnType<typeof useTimeSkipping>, taskQueue: string) =>
  Worker.create({
    connection: server.env.nativeConnection,
    taskQueue,
    workflowBundle: stack().workflowBundle,
    activities: createActivities({ orm: stack().orm, rateLimitWindowSeconds: 60 }),
  });

describe('Provider calls that fail on every try (time-skipping test server)', () => {
  const taskQueue = 'test-unresolved-provider-call';
  const server = useTimeSkipping();
  const workerWithoutVault = () => workerWithoutVaultOn(server, taskQueue);

  it('a capture whose provider call fails on every try stays capture_pending (never back to pre_authorized while in doubt), looked up with backoff', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const created = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false }));
    expect(created.status, created.text).to.equal(201);
    expect(created.body.data.status).to.equal('pre_authorized');
    const transactionId = created.body.data.id;

    const handle = await server.env.client.workflow.start(transactionOperationWorkflow, {
      workflowId: `test-capture-${randomUUID()}`,
      taskQueue,
      args: [{ kind: 'capture', operationId: randomUUID(), transactionId }],
    });
    // Without the vault neither the call nor its lookups can tell: an hour later it is still in doubt.
    await (await workerWithoutVault()).runUntil(server.env.sleep('1 hour'));
    const tx = (await api.get(`/transactions/${transactionId}`, { key: tenant.merchant_secret_key })).body.data;
    expect(tx).to.include({ status: 'capture_pending', amount_captured: 0 });
    const history = await handle.fetchHistory();
    const waits = history
      .events!.filter((e) => e.timerStartedEventAttributes)
      .map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds));
    expect(waits.slice(0, 5)).to.deep.equal([5, 30, 60, 300, 900]);
    await handle.terminate('test over');
  });

  it('a capture whose lookups cannot tell at first is looked up again until the provider says: authorized, captured once', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const created = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false }));
    const transactionId = created.body.data.id;
    const force = async (operation: string, scenario: string, times: number) =>
      expect(
        (
          await control('POST', '/overrides', {
            provider: 'provider_a',
            credentials: connector.credentials,
            operation,
            scenario,
            times,
          })
        ).status,
      ).to.equal(201);
    await force('capture', 'approved_server_error', 1);
    await force('lookup', 'processing_error', 3);
    const queue = `${taskQueue}-vault`;
    const worker = await stackWorker(server.env, queue);
    const handle = await server.env.client.workflow.start(transactionOperationWorkflow, {
      workflowId: `test-capture-${randomUUID()}`,
      taskQueue: queue,
      args: [{ kind: 'capture', operationId: randomUUID(), transactionId }],
    });
    expect(await worker.runUntil(handle.result())).to.deep.equal({ ok: true, outcome: 'approved' });
    const tx = (await api.get(`/transactions/${transactionId}`, { key: tenant.merchant_secret_key })).body.data;
    expect(tx).to.include({ status: 'authorized', amount_captured: 1500 });
    const captures = (
      await ledger({ provider: 'provider_a', account: await accountOf('provider_a', connector.credentials) })
    ).filter((e) => e.operation === 'capture' && !e.replayed);
    expect(captures).to.have.length(1);
  });
});

describe('A charge attempt that fails on every try (a time-skipping test server of its own)', () => {
  // Its resolution runs two hours of skipped waits: a server of its own leaves the other tests' clock alone.
  const taskQueue = 'test-unresolved-charge-attempt';
  const server = useTimeSkipping();
  const workerWithoutVault = () => workerWithoutVaultOn(server, taskQueue);

  it('an attempt that fails on every try stops the cascade: pending while its resolution looks again, then failed provider_outcome_unknown at the horizon, no provider call', async () => {
    const tenant = await createTenant();
    const connectors = await cascade(tenant, ['provider_a', 'provider_a']);
    const token = await cardToken(tenant);
    const input = await buildTransactionInput(
      stack().orm.em.fork(),
      tenant.organization_id,
      tenant.merchant_id,
      cardCharge(token) as never,
    );
    const handle = await server.env.client.workflow.start(transactionWorkflow, {
      workflowId: transactionWorkflowId(input.transactionId),
      taskQueue,
      args: [input],
    });

    const { answered, resolved } = await (
      await workerWithoutVault()
    ).runUntil(async () => ({
      answered: await handle.result(),
      // Without the vault its lookups cannot tell either: failed once the horizon passes, for the reconciler.
      resolved: await server.env.client.workflow.getHandle(`transaction-resolution-${input.transactionId}`).result(),
    }));
    expect(answered).to.deep.equal({ transactionId: input.transactionId, status: 'pending' });
    expect(resolved).to.deep.equal({ transactionId: input.transactionId, status: 'failed' });
    const tx = (await api.get(`/transactions/${input.transactionId}`, { key: tenant.merchant_secret_key })).body.data;
    expect(tx.status).to.equal('failed');
    expect(
      tx.timeline.map((a: any) => [a.attempt_number, a.connector_id, a.status, a.error_category, a.error_code]),
    ).to.deep.equal([[1, connectors[0].id, 'error', 'processing_error', UNRESOLVED_PROVIDER_CALL]]);
    for (const connector of connectors) {
      expect(
        await ledger({ provider: 'provider_a', account: await accountOf('provider_a', connector.credentials) }),
      ).to.deep.equal([]);
    }
  });
});
