/**
 * A renewal survives its worker dying mid-charge: the only worker is a separate process (npm run worker), killed
 * with SIGKILL while the renewal's provider call is in flight; a fresh worker takes over. The sandbox ledger shows
 * exactly one charge for that cycle (the retried activity replays under the same provider idempotency key, and the
 * renewal's ids derive from subscription + cycle) and the subscription advanced exactly one period, once.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { EventSchema, TransactionSchema } from '../../db/entities';
import { subscriptionWorkflowId } from '../../workflows/subscription.shared';
import { rows } from '../helpers/db';
import { accountOf, ledger } from '../helpers/sandbox';
import { stack, withWorkerDown } from '../helpers/stack';
import { override } from '../helpers/transactions';
import { storedSubscription, subscribed } from '../helpers/subscriptions';

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Subscription renewal — worker killed mid-renewal', () => {
  it('worker killed (SIGKILL) mid-renewal: exactly one charge for that cycle at the sandbox, and one period advanced once', async function () {
    this.timeout(4 * 60 * 1000);
    // A daily subscription whose first renewal falls due a few seconds from now.
    const sub = await subscribed(new Date(Date.now() - DAY + 4_000), { billingCycle: 'daily' });
    const account = await accountOf('provider_a', sub.connector.credentials);
    // The renewal's authorization answers after ~2 s: the window the worker is killed in.
    await override(sub.connector, 'slow', 1);
    const client = stack().api.deps.temporal.client;
    const renewalAttemptStarted = () =>
      rows(
        `select 1 from transaction_attempts a join transactions t on t.id = a.transaction_id
          where t.subscription_id = ? and t.metadata->>'subscription_id' = t.subscription_id`,
        [sub.state.subscriptionId],
      );

    let killedAt = 0;
    await withWorkerDown(async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', require.resolve('../../worker/main')], {
        env: { ...process.env, ...stack().env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      try {
        await startSubscriptionWorkflow(client, sub.state);
        // attemptCharge writes the attempt row just before its provider call; the sandbox answers ~2 s later.
        for (let i = 0; i < 1200 && (await renewalAttemptStarted()).length === 0; i += 1) {
          expect(child.exitCode, stderr).to.equal(null);
          await sleep(100);
        }
        expect(await renewalAttemptStarted(), 'the renewal reached its provider call').to.have.length(1);
        await sleep(500);
        killedAt = Date.now();
        child.kill('SIGKILL');
        await once(child, 'exit');
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    });

    // The fresh in-process worker finishes the renewal.
    for (let i = 0; i < 900 && (await storedSubscription(sub.state.subscriptionId)).cyclesCompleted < 2; i += 1)
      await sleep(100);
    const stored = await storedSubscription(sub.state.subscriptionId);
    await client.workflow.getHandle(subscriptionWorkflowId(sub.state.subscriptionId)).terminate();

    const em = stack().orm.em.fork();
    const renewals = (await em.find(TransactionSchema, { subscriptionId: sub.state.subscriptionId })).filter(
      (tx) => tx.metadata?.subscription_id === sub.state.subscriptionId,
    );
    expect(renewals.map((tx) => [tx.status, tx.metadata?.cycle_number])).to.deep.equal([['authorized', 2]]);
    const authorizations = (await ledger({ provider: 'provider_a', account })).filter(
      (e) => e.operation === 'authorize' && e.reference === renewals[0].id,
    );
    const charged = authorizations.filter((e) => !e.replayed && ['approved', 'authorized'].includes(e.outcome));
    expect(charged, 'one real charge for the cycle').to.have.length(1);
    // The provider finished the killed worker's call after the kill: the kill really hit mid-renewal.
    expect(Date.parse(charged[0].at)).to.be.greaterThan(killedAt);

    expect([stored.status, stored.cyclesCompleted]).to.deep.equal(['active', 2]);
    expect(stored.currentPeriodStart.toISOString()).to.equal(sub.state.periodEnd);
    expect(stored.currentPeriodEnd.getTime() - stored.currentPeriodStart.getTime()).to.equal(DAY);
    const renewed = await em.count(EventSchema, { merchantId: sub.tenant.merchant_id, type: 'subscription.renewed' });
    expect(renewed, 'subscription.renewed once').to.equal(1);
  });
});
