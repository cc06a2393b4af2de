/**
 * The charge cascade survives its worker going away mid-cascade: the API picks a fixed task queue, so this test
 * stops the stack's own worker while the second connector's (slow) authorization is in flight, starts a fresh
 * worker, and checks the transaction completes with exactly one real charge at the sandbox (retries replay).
 */
import { expect } from 'chai';
import { createTenant } from '../helpers/factories';
import { accountOf, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, charge, override } from '../helpers/transactions';
import { startWorker } from '../../worker/main';

const SLOW_CARD = { number: '4000000000000507', cvc: '123', brand: 'visa' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('POST /api/v1/transactions — worker restart mid-cascade', () => {
  it('completes after the worker is stopped and restarted mid-cascade, with at most one successful provider charge', async () => {
    const tenant = await createTenant();
    const connectors = await cascade(tenant, ['provider_a', 'provider_a']);
    await override(connectors[0], 'do_not_honor');
    const [first, second] = await Promise.all(connectors.map((c) => accountOf('provider_a', c.credentials)));
    const token = await cardToken(tenant, SLOW_CARD);

    const pending = charge(tenant, cardCharge(token));
    // The first connector declines at once; the cascade then calls the second, which answers after ~2 s.
    for (let i = 0; i < 100 && (await ledger({ provider: 'provider_a', account: first })).length === 0; i += 1) await sleep(50);
    await sleep(300);
    const s = stack();
    const stopAt = new Date().toISOString();
    try {
      await s.worker.stop();
    } finally {
      s.worker = await startWorker({ config: s.config, orm: s.orm, workflowBundle: s.workflowBundle });
    }

    const res = await pending;
    expect(res.status, res.text).to.equal(201);
    const tx = res.body.data;
    expect(tx.status).to.equal('authorized');
    expect(tx.timeline.map((a: any) => [a.connector_id, a.status])).to.deep.equal([
      [connectors[0].id, 'failed'],
      [connectors[1].id, 'success'],
    ]);
    const charges = (await ledger({ provider: 'provider_a', account: second }))
      .filter((e) => e.operation === 'authorize' && !e.replayed && ['approved', 'authorized'].includes(e.outcome));
    expect(charges).to.have.length(1);
    expect(charges[0].reference).to.equal(tx.id);
    // The sandbox answered the second attempt only after the shutdown began: the stop really hit mid-cascade.
    expect(Date.parse(charges[0].at)).to.be.greaterThan(Date.parse(stopAt));
  });
});
