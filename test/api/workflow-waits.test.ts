/**
 * A request never holds a database transaction while it waits on Temporal, and every such wait has a deadline
 * (WORKFLOW_WAIT_MS). With the worker stopped (nothing has opened the transactions), charges answer 504
 * CHARGE_STILL_PROCESSING on time while the rest of the API keeps answering; their retries with the same keys, once the worker is back, charge each exactly once.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../domain/platform/config';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, customerInput } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { accountOf, ledger } from '../helpers/sandbox';
import { stack, withWorkerDown } from '../helpers/stack';
import { cardCharge, cardToken, cascade } from '../helpers/transactions';

const CHARGES = 30;

/** How long one request takes, in milliseconds. */
async function timed(send: () => Promise<{ status: number }>): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await send();
  return { status: res.status, ms: performance.now() - started };
}

describe('Waiting on workflows', () => {
  let app: RunningApi;

  before(async () => {
    const { config } = stack();
    // A pool of 10 connections, fewer than the charges waiting at once (so a wait that held one would starve the
    // rest), a short deadline to keep the test quick, and a rate limit that lets one
    // key send 30 charges and their 30 retries.
    app = await startApi(
      {
        ...config,
        workflowWaitMs: 4_000,
        databasePool: { ...config.databasePool, size: 10 },
        rateLimit: { ...config.rateLimit, limit: 1_000, windowSeconds: 60 },
      },
      0,
    );
  });

  after(async () => {
    await app?.stop();
  });

  it('a request never holds a database transaction while it waits on a workflow: with the worker stopped, 30 charges answer 504 CHARGE_STILL_PROCESSING while reads and health answer in < 100 ms; their retries charge each exactly once', async function () {
    this.timeout(120_000);
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const key = tenant.merchant_secret_key;
    const customer = await api.post('/customers', { key, body: customerInput(), baseUrl: app.url });
    expect(customer.status, customer.text).to.equal(201);
    const tokens = [];
    for (let i = 0; i < CHARGES; i += 1) tokens.push(await cardToken(tenant));
    const tries = tokens.map((token) => ({ body: cardCharge(token), headers: { 'idempotency-key': randomUUID() } }));
    const send = (attempt: (typeof tries)[number]) => api.post('/transactions', { key, ...attempt, baseUrl: app.url });

    const { answers, reads, probes } = await withWorkerDown(async () => {
      const pending = tries.map(send);
      // Every charge has started its workflow and is waiting on it (nothing can run it).
      const query = `WorkflowType = 'transactionWorkflow' AND MerchantId = '${tenant.merchant_id}'`;
      for (let i = 0; i < 200 && (await app.deps.temporal.client.workflow.count(query)).count < CHARGES; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect((await app.deps.temporal.client.workflow.count(query)).count).to.equal(CHARGES);
      const reads = [];
      const probes = [];
      for (let i = 0; i < 5; i += 1) {
        reads.push(await timed(() => api.get(`/customers/${customer.body.data.id}`, { key, baseUrl: app.url })));
        probes.push(await timed(() => fetch(`${app.url}/health/live`)));
      }
      return { answers: await Promise.all(pending), reads, probes };
    });

    expect(reads.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
    expect(probes.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
    for (const { ms } of [...reads, ...probes]) expect(ms).to.be.below(100);
    const transactionIds = answers.map(
      (answer) => expectError(answer, 504, 'external_service_error', 'CHARGE_STILL_PROCESSING').details.transaction_id,
    );
    expect(new Set(transactionIds).size).to.equal(CHARGES);

    // The worker is back: the same requests with the same keys finish the charges their first tries started. As the
    // answer says, a client retries while the charge is still processing (30 charges queue up on a fresh worker).
    const retried = await Promise.all(
      tries.map(async (attempt) => {
        let res = await send(attempt);
        for (let i = 0; i < 10 && res.status === 504; i += 1) res = await send(attempt);
        return res;
      }),
    );
    for (const [i, res] of retried.entries()) {
      expect(res.status, res.text).to.equal(201);
      // Once the worker has opened the transaction, a retry outliving the wait answers it as it stands (pending).
      expect(res.body.data.id).to.equal(transactionIds[i]);
      let settled = res.body.data;
      for (let j = 0; j < 150 && settled.status === 'pending'; j += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        settled = (await api.get(`/transactions/${transactionIds[i]}`, { key, baseUrl: app.url })).body.data;
      }
      expect(settled.status).to.equal('authorized');
    }
    const charges = (
      await ledger({ provider: 'provider_a', account: await accountOf('provider_a', connector.credentials) })
    ).filter((e) => e.operation === 'authorize' && !e.replayed);
    expect(charges.map((e) => e.reference).sort()).to.deep.equal([...transactionIds].sort());
  });

  it("the API's pool has statement_timeout and idle_in_transaction_session_timeout set, and DATABASE_POOL_SIZE sizes it", async () => {
    const config = loadConfig({
      ...stack().env,
      DATABASE_POOL_SIZE: '7',
      DATABASE_STATEMENT_TIMEOUT_MS: '4000',
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '3000',
    });
    expect(config.databasePool).to.deep.equal({ size: 7, statementTimeoutMs: 4000, idleInTransactionTimeoutMs: 3000 });
    const sized = await startApi(config, 0);
    try {
      const em = sized.deps.orm.em.fork();
      const [statement] = await em.execute('show statement_timeout');
      const [idle] = await em.execute('show idle_in_transaction_session_timeout');
      expect([statement.statement_timeout, idle.idle_in_transaction_session_timeout]).to.deep.equal(['4s', '3s']);
      expect(em.getConnection().getKnex().client.pool.max).to.equal(7);
    } finally {
      await sized.stop();
    }
    // The defaults hold for the stack's API.
    const [statement] = await stack().api.deps.orm.em.fork().execute('show statement_timeout');
    expect(statement.statement_timeout).to.equal('15s');
  });
});
