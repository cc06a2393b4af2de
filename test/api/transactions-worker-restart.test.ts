/**
 * The charge cascade survives its worker going away mid-cascade: the API picks a fixed task queue, so these tests
 * take the worker away while the second connector's (slow) authorization is in flight — a graceful stop (a deploy)
 * and a SIGKILL of a worker process (a crash) — start a fresh worker, and check the transaction completes with
 * exactly one real charge at the sandbox (a retried activity replays under the same provider idempotency key).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { accountOf, ledger } from '../helpers/sandbox';
import { stack, withWorkerDown } from '../helpers/stack';
import { cardCharge, cardToken, cascade, charge, override, type CascadeConnector } from '../helpers/transactions';
import type { ApiResponse } from '../helpers/http';

const SLOW_CARD = { number: '4000000000000507', cvc: '123', brand: 'visa' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two provider_a connectors: the first declines at once, the second approves the slow card after ~2 s. */
async function slowSecondConnector() {
  const tenant = await createTenant();
  const connectors = await cascade(tenant, ['provider_a', 'provider_a']);
  await override(connectors[0], 'do_not_honor');
  const [first, second] = await Promise.all(connectors.map((c) => accountOf('provider_a', c.credentials)));
  return { tenant, connectors, first, second, token: await cardToken(tenant, SLOW_CARD) };
}

/** 201 authorized by the second connector after the first declined, with exactly one real charge there. */
async function expectChargedOnceBySecond(res: ApiResponse, connectors: CascadeConnector[], secondAccount: string) {
  expect(res.status, res.text).to.equal(201);
  const tx = res.body.data;
  expect(tx.status).to.equal('authorized');
  expect(tx.timeline.map((a: any) => [a.connector_id, a.status])).to.deep.equal([
    [connectors[0].id, 'failed'],
    [connectors[1].id, 'success'],
  ]);
  const authorizations = (await ledger({ provider: 'provider_a', account: secondAccount })).filter(
    (e) => e.operation === 'authorize',
  );
  const charged = authorizations.filter((e) => !e.replayed && ['approved', 'authorized'].includes(e.outcome));
  expect(charged).to.have.length(1);
  expect(charged[0].reference).to.equal(tx.id);
  return { charged: charged[0], replayed: authorizations.filter((e) => e.replayed) };
}

describe('POST /api/v1/transactions — worker restart mid-cascade', () => {
  it('completes after the worker is stopped and restarted mid-cascade, with at most one successful provider charge', async () => {
    const { tenant, connectors, first, second, token } = await slowSecondConnector();

    const pending = charge(tenant, cardCharge(token));
    // The first connector declines at once; the cascade then calls the second, which answers after ~2 s.
    for (let i = 0; i < 100 && (await ledger({ provider: 'provider_a', account: first })).length === 0; i += 1)
      await sleep(50);
    await sleep(300);
    const stopAt = Date.now();
    await withWorkerDown(async () => undefined);

    const { charged } = await expectChargedOnceBySecond(await pending, connectors, second);
    // The sandbox answered the second attempt only after the shutdown began: the stop really hit mid-cascade.
    expect(Date.parse(charged.at)).to.be.greaterThan(stopAt);
  });

  it('completes after the worker process is killed (SIGKILL) mid-call and a new worker started: one provider charge, the retry replayed', async function () {
    this.timeout(3 * 60 * 1000);
    const { tenant, connectors, second, token } = await slowSecondConnector();

    // The only worker polling the queues is a separate process (npm run worker), so it can really be killed.
    let killedAt = 0;
    const { pending } = await withWorkerDown(async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', require.resolve('../../worker/main')], {
        env: { ...process.env, ...stack().env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      try {
        const charging = charge(tenant, cardCharge(token));
        // attemptCharge writes the attempt row just before its provider call; the sandbox answers ~2 s later.
        const secondAttemptStarted = () =>
          rows(
            `select 1 from transaction_attempts a join transactions t on t.id = a.transaction_id
           where t.merchant_id = ? and a.attempt_number = 2`,
            [tenant.merchant_id],
          );
        for (let i = 0; i < 1200 && (await secondAttemptStarted()).length === 0; i += 1) {
          expect(child.exitCode, stderr).to.equal(null);
          await sleep(100);
        }
        await sleep(500);
        killedAt = Date.now();
        child.kill('SIGKILL');
        await once(child, 'exit');
        // Wrapped: the charge can only finish once withWorkerDown has started a fresh worker.
        return { pending: charging };
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    });

    const { charged, replayed } = await expectChargedOnceBySecond(await pending, connectors, second);
    // The provider finished the killed worker's call after the kill, and the restarted worker's retry of the
    // activity got that same charge back (replayed) instead of making a second one.
    expect(Date.parse(charged.at)).to.be.greaterThan(killedAt);
    expect(replayed).to.have.length.greaterThan(0);
  });
});
