/**
 * A renewal the provider holds for review, on the time-skipping server
 * with the real charge and settlement workflows and the sandbox's `review` card: the subscription waits for the
 * verdict instead of entering dunning, applies it to its state as it is then, and refunds a payment that lands
 * after the subscription was cancelled.
 */
import { expect } from 'chai';
import { TransactionAttemptSchema } from '../../db/entities';
import { cancelUpdate, pauseUpdate, viewQuery } from '../../workflows/subscription.shared';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { sleepPast } from '../helpers/time-skipping';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { stack } from '../helpers/stack';
import { override } from '../helpers/transactions';
import { control } from '../helpers/sandbox';
import { renewalCharges, storedSubscription, subscribed } from '../helpers/subscriptions';

const admin = { triggeredBy: 'admin' as const, actor: null };

async function settleAtProvider(transactionId: string) {
  const [attempt] = await stack()
    .orm.em.fork()
    .find(TransactionAttemptSchema, { transactionId }, { orderBy: { attemptNumber: 'desc' }, limit: 1 });
  const settled = await control('POST', `/payments/${attempt.providerReference}/settle`);
  expect(settled.status, JSON.stringify(settled.body)).to.be.lessThan(300);
}

describe('A renewal held for review (time-skipping test server)', () => {
  const { server, serverNow, worker, start, track } = useSubscriptionWorkflows('test-subscription-settlement');

  it('a renewal paid after its subscription was cancelled is refunded in full, never kept', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    await override(sub.connector, 'review', 1);
    const handle = await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      await sleepPast(server.env, sub.state.periodEnd);
      const [renewal] = await renewalCharges(sub);
      track(`transaction-settlement-${renewal.id}`);
      // Pending at the provider: no dunning, a settlement check next, and only cancel now (or a new instrument).
      const view = await handle.query(viewQuery);
      expect([view.state.status, view.state.settling?.transactionId, view.nextWakeReason]).to.deep.equal([
        'active',
        renewal.id,
        'settlement_check',
      ]);
      const pause = await handle.executeUpdate(pauseUpdate, { args: [{ ...admin, reason: null }] }).catch((e) => e);
      expect(pause).to.be.instanceOf(WorkflowUpdateFailedError);
      const state = await handle.executeUpdate(cancelUpdate, {
        args: [{ ...admin, atPeriodEnd: false, reason: null }],
      });
      expect(state.status).to.equal('cancelled');
      await settleAtProvider(renewal.id);
      await server.env.sleep(10 * 60_000);
      expect(await handle.result()).to.equal('cancelled');
    });
    const [renewal] = await renewalCharges(sub);
    expect(renewal.status).to.equal('refunded');
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cyclesCompleted]).to.deep.equal(['cancelled', 1]);
  });
});
