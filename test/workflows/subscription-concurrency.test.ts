/**
 * The subscription workflow under concurrency and faults, on the time-skipping server with the real activities,
 * database and sandbox: one move at a time for real (a FIFO lock hands it to exactly one waiter), a renewal's outcome
 * applied to the state as it is when the charge returns, and a workflow that outlives a database outage.
 */
import { expect } from 'chai';
import { WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { openOrm } from '../../db/orm';
import {
  cancelUpdate,
  changeOfferUpdate,
  changePaymentInstrumentUpdate,
  pauseUpdate,
  viewQuery,
} from '../../workflows/subscription.shared';
import { sleepPast } from '../helpers/time-skipping';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { stack } from '../helpers/stack';
import { startTcpProxy } from '../helpers/tcp-proxy';
import { override } from '../helpers/transactions';
import { saveCard } from '../helpers/vault';
import {
  offerTarget,
  renewalCharges,
  storedSubscription,
  subscribed,
  subscriptionEvents,
  transitionsOf,
  type Subscribed,
} from '../helpers/subscriptions';

const admin = { triggeredBy: 'admin' as const, actor: null };

/** Polls until `check` holds (real time: the sandbox's slow card takes ~2 s), failing after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const refusalType = (result: PromiseSettledResult<unknown>) =>
  result.status === 'rejected' &&
  result.reason instanceof WorkflowUpdateFailedError &&
  result.reason.cause instanceof ApplicationFailure
    ? result.reason.cause.type
    : null;

describe('subscriptionWorkflow under concurrency and faults (time-skipping test server)', () => {
  const { server, serverNow, worker, start } = useSubscriptionWorkflows('test-subscription-concurrency');

  /** Lets the renewal fall due on the sandbox's slow card and returns once its charge is at the provider. */
  async function renewalInFlight(sub: Subscribed): Promise<{ skipping: Promise<void> }> {
    await override(sub.connector, 'slow');
    const skipping = sleepPast(server.env, sub.state.periodEnd, 60_000);
    await until('the renewal charge is in flight', async () => (await renewalCharges(sub)).length === 1);
    return { skipping };
  }

  it('three pauses sent while a renewal is in flight are one move: one answers, the others get INVALID_STATE_TRANSITION', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    const results = await (
      await worker()
    ).runUntil(async () => {
      const { skipping } = await renewalInFlight(sub);
      const pauses = [1, 2, 3].map(() => handle.executeUpdate(pauseUpdate, { args: [{ ...admin, reason: null }] }));
      const settled = await Promise.allSettled(pauses);
      await skipping;
      return settled;
    });
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    expect(results.map(refusalType).filter(Boolean)).to.deep.equal([
      'INVALID_STATE_TRANSITION',
      'INVALID_STATE_TRANSITION',
    ]);
    const pauses = (await transitionsOf(sub)).filter((t) => t.transitionType === 'pause');
    expect(pauses).to.have.length(1);
    const stored = await storedSubscription(sub.state.subscriptionId);
    // The renewal that was in flight is applied first (paid), then the one pause.
    expect([stored.status, stored.cyclesCompleted]).to.deep.equal(['paused', 2]);
    const types = (await subscriptionEvents(sub.tenant.merchant_id)).map(([type]) => type);
    expect(types.filter((type) => type === 'subscription.paused')).to.have.length(1);
  });

  it('pause, cancel and change-offer sent at once form one chain: each from_status is the previous to_status, nothing after the cancellation', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const target = await offerTarget(sub, 1500, 'next_renew');
    const handle = await start(sub);
    await (
      await worker()
    ).runUntil(async () => {
      const { skipping } = await renewalInFlight(sub);
      await Promise.allSettled([
        handle.executeUpdate(pauseUpdate, { args: [{ ...admin, reason: null }] }),
        handle.executeUpdate(cancelUpdate, { args: [{ ...admin, atPeriodEnd: false, reason: null }] }),
        handle.executeUpdate(changeOfferUpdate, { args: [{ ...admin, target }] }),
      ]);
      await skipping;
    });
    const chain = await transitionsOf(sub);
    for (const [index, t] of chain.entries()) {
      if (index > 0)
        expect(t.fromStatus, `transition ${index} (${t.transitionType})`).to.equal(chain[index - 1].toStatus);
    }
    const cancelled = chain.findIndex((t) => t.toStatus === 'cancelled');
    expect(cancelled, 'a cancellation').to.be.greaterThan(0);
    expect(chain.slice(cancelled + 1)).to.have.length(0);
    expect((await storedSubscription(sub.state.subscriptionId)).status).to.equal('cancelled');
  });

  it('a cancel sent while a renewal is in flight ends the subscription: the renewal cannot bring it back to active, and nothing is billed after', async function () {
    this.timeout(60_000);
    const sub = await subscribed(await serverNow());
    const handle = await start(sub);
    const card = await saveCard(sub.tenant, sub.customerId);
    const w = await worker();
    await w.runUntil(async () => {
      const { skipping } = await renewalInFlight(sub);
      // The cancel is accepted (validated, queued behind the renewal) before the change is sent: two requests sent
      // at once may reach the workflow in either order. The change, queued behind the cancel, is refused.
      const cancelling = await handle.startUpdate(cancelUpdate, {
        args: [{ ...admin, atPeriodEnd: false, reason: 'moving' }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      const [cancel, change] = await Promise.allSettled([
        cancelling.result(),
        handle.executeUpdate(changePaymentInstrumentUpdate, { args: [{ ...admin, paymentInstrumentId: card.id }] }),
      ]);
      await skipping;
      expect(cancel.status).to.equal('fulfilled');
      expect(refusalType(change)).to.equal('INVALID_STATE_TRANSITION');
      expect(await handle.result()).to.equal('cancelled');
    });
    const stored = await storedSubscription(sub.state.subscriptionId);
    expect([stored.status, stored.cancellationReason]).to.deep.equal(['cancelled', 'moving']);
    expect(await renewalCharges(sub)).to.have.length(1);
  });

  it('the workflow outlives a database outage longer than the old retry budget: the renewal completes once PostgreSQL is back, and cancel works', async function () {
    this.timeout(180_000);
    const sub = await subscribed(await serverNow());
    const proxy = await startTcpProxy(stack().databasePort);
    const url = new URL(stack().config.databaseUrl);
    url.port = String(proxy.port);
    const orm = await openOrm(url.toString());
    const handle = await start(sub);
    try {
      const w = await worker(undefined, orm);
      await w.runUntil(async () => {
        await proxy.close();
        // Three hours past the renewal instant with the database down: at the capped backoff that is well over
        // the 20 tries the old policy allowed (about three minutes), and past the ten minutes that flag it.
        await sleepPast(server.env, sub.state.periodEnd, 3 * 3_600_000);
        const { raw, searchAttributes } = await handle.describe();
        const retried = Math.max(...(raw.pendingActivities ?? []).map((a) => a.attempt ?? 0));
        expect(retried, 'tries of the pending step').to.be.greaterThan(20);
        expect(searchAttributes.SubscriptionAttention).to.deep.equal(['retrying']);
        const back = await startTcpProxy(stack().databasePort, '127.0.0.1', proxy.port);
        try {
          // The next try is at most five minutes (the backoff's cap) away.
          await server.env.sleep(6 * 60_000);
          await until(
            'the renewal is written',
            async () => {
              return (await storedSubscription(sub.state.subscriptionId)).cyclesCompleted === 2;
            },
            60_000,
          );
          const state = await handle.executeUpdate(cancelUpdate, {
            args: [{ ...admin, atPeriodEnd: false, reason: null }],
          });
          expect(state.status).to.equal('cancelled');
          expect((await handle.query(viewQuery)).state.status).to.equal('cancelled');
        } finally {
          await back.close();
        }
      });
    } finally {
      await orm.close(true);
    }
    expect((await storedSubscription(sub.state.subscriptionId)).status).to.equal('cancelled');
    expect(await renewalCharges(sub)).to.have.length(1);
  });
});
