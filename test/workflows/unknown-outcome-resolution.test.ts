/**
 * An attempt left unknown (the provider answered 5xx after charging, and the attempt's own lookup could not tell)
 * is resolved by its own charge before the transaction is declared failed: the charge answers `pending`, and its
 * resolution (transaction-resolution-<tx id>) looks the attempt up again under its idempotency key on a backing-off
 * durable timer. The 5-minute reconciler stays the safety net once the resolution's horizon passes. A transaction
 * whose process died (here: its resolution was terminated by an operator) is found by the pending-charge sweep and
 * resolved. The time-skipping server skips the waits; the activities call the sandbox and write the stack's database.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { vaultSettingsOf } from '../../activities/vault';
import { buildTransactionInput } from '../../api/modules/transactions/transaction-request.service';
import { transactionWorkflow } from '../../workflows/transaction';
import { transactionWorkflowId } from '../../workflows/transaction.shared';
import { reconcileUnknownOutcomesWorkflow } from '../../workflows/reconcile-unknown-outcomes';
import { createTenant, type Tenant } from '../helpers/factories';
import { api } from '../helpers/http';
import { rows } from '../helpers/db';
import { control, ledger, type LedgerEntry } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, override, type CascadeConnector } from '../helpers/transactions';
import { useTimeSkipping } from '../helpers/time-skipping';

const SERVER_ERROR = { number: '4000000000000119', cvc: '123', brand: 'visa' };
const SUCCESSFUL = ['approved', 'authorized'];

/** First-time (not replayed) authorizations the providers processed successfully, for this transaction. */
const charges = async (reference: string): Promise<LedgerEntry[]> =>
  (await ledger({ reference })).filter(
    (entry) => entry.operation === 'authorize' && !entry.replayed && SUCCESSFUL.includes(entry.outcome),
  );

const eventsOf = async (tenant: Tenant, transactionId: string): Promise<string[]> =>
  (
    await rows(`select type from events where merchant_id = ? and data->>'id' = ? order by seq`, [
      tenant.merchant_id,
      transactionId,
    ])
  ).map((event) => event.type);

describe('An attempt left unknown is resolved by its own charge (time-skipping test server)', function () {
  // Each test drives its workflows to their end, with real provider calls between the skipped waits.
  this.timeout(120_000);
  /**
   * A time-skipping server of its own per test (started in the nested describe's hooks): a server that ran an
   * earlier test's workflows stopped skipping this test's waits.
   */
  let server: ReturnType<typeof useTimeSkipping>;
  const ownServer = () => {
    const own = useTimeSkipping();
    beforeEach(() => {
      server = own;
    });
  };
  // A task queue of its own per test: a worker that just shut down never holds up the next test's tasks.
  let taskQueue: string;
  let tenant: Tenant;
  let connectors: CascadeConnector[];

  /** A worker running the real workflows and activities, with a Temporal client for the sweep's starts. */
  const worker = () =>
    Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle: stack().workflowBundle,
      activities: createActivities({
        orm: stack().orm,
        rateLimitWindowSeconds: 60,
        vault: vaultSettingsOf(stack().config),
        temporalClient: server.env.client,
      }),
    });

  /** The first provider's lookups answer an error: `times` of them, or all of them until removed (its id). */
  const lookupsCannotTell = async (times?: number): Promise<string> => {
    const res = await control('POST', '/overrides', {
      provider: 'provider_a',
      credentials: connectors[0].credentials,
      operation: 'lookup',
      scenario: 'processing_error',
      ...(times ? { times } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id;
  };

  const startCharge = async () => {
    const input = await buildTransactionInput(
      stack().orm.em.fork(),
      tenant.organization_id,
      tenant.merchant_id,
      cardCharge(await cardToken(tenant, SERVER_ERROR)) as never,
    );
    const handle = await server.env.client.workflow.start(transactionWorkflow, {
      workflowId: transactionWorkflowId(input.transactionId),
      taskQueue,
      args: [input],
    });
    return { transactionId: input.transactionId, handle };
  };

  const read = async (transactionId: string) => {
    const res = await api.get(`/transactions/${transactionId}`, { key: tenant.merchant_secret_key });
    expect(res.status, res.text).to.equal(200);
    return res.body.data;
  };
  const attemptsOf = (tx: any) => tx.timeline.map((a: any) => [a.connector_id, a.status, a.error_code]);
  const resolution = (transactionId: string) =>
    server.env.client.workflow.getHandle(`transaction-resolution-${transactionId}`);
  const resolved = (transactionId: string) => resolution(transactionId).result();

  beforeEach(async () => {
    taskQueue = `test-unknown-outcome-resolution-${randomUUID()}`;
    tenant = await createTenant();
    connectors = await cascade(tenant, ['provider_a', 'checkout']);
    // Were the cascade to move on, the second provider would charge the customer whatever the card.
    await override(connectors[1], 'approve');
  });

  describe('when the provider had charged', () => {
    ownServer();
    it('the provider had charged: the charge answers pending, then its own lookup finds the charge → authorized, charged once', async () => {
      await override(connectors[0], 'approved_server_error', 1);
      await lookupsCannotTell(1);
      const { transactionId, handle } = await startCharge();
      const {
        answered,
        atAnswer,
        resolved: outcome,
      } = await (
        await worker()
      ).runUntil(async () => {
        const answered = await handle.result();
        const atAnswer = await read(transactionId);
        return { answered, atAnswer, resolved: await resolved(transactionId) };
      });

      expect(answered).to.deep.equal({ transactionId, status: 'pending' });
      expect(atAnswer.status).to.equal('pending');
      expect(attemptsOf(atAnswer)).to.deep.equal([[connectors[0].id, 'error', 'provider_outcome_unknown']]);
      expect(outcome).to.deep.equal({ transactionId, status: 'authorized' });
      const tx = await read(transactionId);
      expect(tx).to.include({ status: 'authorized', amount_authorized: 1500, amount_captured: 1500 });
      const charged = await charges(transactionId);
      expect(charged.map((entry) => entry.provider)).to.deep.equal(['provider_a']);
      const attempts = await api.get(`/transactions/${transactionId}/attempts`, { key: tenant.merchant_secret_key });
      expect(attempts.body.data[0].provider_reference).to.equal(charged[0].provider_reference);
      expect(attemptsOf(tx)).to.deep.equal([[connectors[0].id, 'success', null]]);
      expect(await eventsOf(tenant, transactionId)).to.deep.equal([
        'transaction.created',
        'transaction.pending',
        'transaction.authorized',
      ]);
    });
  });

  describe('when the provider never processed it', () => {
    ownServer();
    it('the provider never processed it: failed with the attempt’s own code, and no other connector is tried', async () => {
      // A 5xx with nothing kept under the key; the attempt's own lookup cannot tell, the resolution's finds nothing.
      await lookupsCannotTell(1);
      const { transactionId, handle } = await startCharge();
      const { answered, resolved: outcome } = await (
        await worker()
      ).runUntil(async () => ({
        answered: await handle.result(),
        resolved: await resolved(transactionId),
      }));

      expect(answered.status).to.equal('pending');
      expect(outcome.status).to.equal('failed');
      const tx = await read(transactionId);
      expect(tx).to.include({ status: 'failed', amount_captured: 0, failure_code: 'provider_not_processed' });
      expect(attemptsOf(tx)).to.deep.equal([[connectors[0].id, 'error', 'provider_not_processed']]);
      expect(await charges(transactionId)).to.deep.equal([]);
      expect(await eventsOf(tenant, transactionId)).to.deep.equal([
        'transaction.created',
        'transaction.pending',
        'transaction.failed',
      ]);
    });
  });

  describe('when nothing answers before the horizon', () => {
    ownServer();
    it('no answer before the horizon: failed provider_outcome_unknown, and the reconciler gives the charge back', async () => {
      await override(connectors[0], 'approved_server_error', 1);
      const lookups = await lookupsCannotTell();
      const { transactionId, handle } = await startCharge();
      const outcome = await (
        await worker()
      ).runUntil(async () => {
        await handle.result();
        return resolved(transactionId);
      });

      expect(outcome.status).to.equal('failed');
      const tx = await read(transactionId);
      expect(tx).to.include({ status: 'failed', amount_captured: 0 });
      expect(attemptsOf(tx)).to.deep.equal([[connectors[0].id, 'error', 'provider_outcome_unknown']]);
      // The resolution looked again on a backing-off timer before giving up: 30 s, 1, 2, 5, 15, 30 minutes …
      const history = await resolution(transactionId).fetchHistory();
      const waits = history
        .events!.filter((e) => e.timerStartedEventAttributes)
        .map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds));
      expect(waits.slice(0, 6)).to.deep.equal([30, 60, 120, 300, 900, 1800]);
      // … until the two-hour horizon (the last wait is cut to it; the clock also moves while activities run).
      expect(waits.reduce((sum, wait) => sum + wait, 0)).to.be.within(2 * 3600 - 60, 2 * 3600);

      // The provider answers lookups again: the reconciler (the safety net) finds the charge and gives it back.
      expect((await control('DELETE', `/overrides/${lookups}`)).status).to.be.oneOf([200, 204]);
      await (
        await worker()
      ).runUntil(
        server.env.client.workflow.execute(reconcileUnknownOutcomesWorkflow, {
          workflowId: `test-reconcile-${transactionId}`,
          taskQueue,
        }),
      );
      const refunds = (await ledger({ reference: transactionId })).filter(
        (entry) => entry.operation === 'refund' && entry.outcome === 'approved',
      );
      expect(refunds.map((entry) => entry.amount)).to.deep.equal([1500]);
      expect(await read(transactionId)).to.include({ status: 'failed', amount_captured: 0 });
    });
  });

  describe('when the charge’s process died', () => {
    ownServer();
    it('a pending charge whose process was terminated is found by the sweep and resolved', async () => {
      await override(connectors[0], 'approved_server_error', 1);
      await lookupsCannotTell(1);
      const { transactionId, handle } = await startCharge();
      await (
        await worker()
      ).runUntil(async () => {
        await handle.result();
        // An operator terminates the resolution before it could look: nothing is left to finish the charge.
        await resolution(transactionId).terminate('operator');
      });
      expect((await read(transactionId)).status).to.equal('pending');
      // Pending for a while: the sweep leaves charges younger than its threshold to their own workflows.
      await stack()
        .orm.em.fork()
        .execute(`update transactions set created_at = now() - interval '1 hour' where id = ?`, [transactionId]);

      const { swept, resolved: outcome } = await (
        await worker()
      ).runUntil(async () => {
        const swept = await server.env.client.workflow.execute('pendingTransactionSweepWorkflow', {
          workflowId: `test-pending-sweep-${transactionId}`,
          taskQueue,
          args: [{ merchantId: tenant.merchant_id }],
        });
        return { swept, resolved: await resolved(transactionId) };
      });

      expect(swept).to.deep.equal({ resumed: 1 });
      expect(outcome).to.deep.equal({ transactionId, status: 'authorized' });
      expect(await read(transactionId)).to.include({ status: 'authorized', amount_captured: 1500 });
      expect((await charges(transactionId)).map((entry) => entry.provider)).to.deep.equal(['provider_a']);
    });
  });
});
