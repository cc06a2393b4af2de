/**
 * A renewal the provider holds for review and approves later, on the real
 * stack in real time: a daily subscription due seconds from now, the sandbox's `review` verdict on its connector.
 * The renewal is pending: the subscription stays active (no dunning, nothing else billed); when the provider
 * settles it, the settlement path signals the subscription, which completes the cycle with that one charge.
 */
import { expect } from 'chai';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { subscriptionWorkflowId, viewQuery } from '../../workflows/subscription.shared';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { control } from '../helpers/sandbox';
import { override, providerReferenceOf } from '../helpers/transactions';
import { renewalCharges, storedSubscription, subscribed, transitionsOf } from '../helpers/subscriptions';

const DAY_MS = 24 * 60 * 60_000;

/** Polls `read` until `done` holds (the workflow and the settlement path run asynchronously). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('A renewal held for review, approved later (real time)', () => {
  it('waits in active without dunning, then the settled charge completes the cycle: one charge, no dunning', async function () {
    this.timeout(90_000);
    // Started a day ago minus a few seconds: the daily renewal is due just after the workflow starts.
    const sub = await subscribed(new Date(Date.now() - DAY_MS + 4_000), { billingCycle: 'daily' });
    await override(sub.connector, 'review', 1);
    await startSubscriptionWorkflow(stack().api.deps.temporal.client, sub.state);

    // Held: the subscription waits on the renewal's settlement (its charge workflow handed over to settlement).
    const handle = stack().api.deps.temporal.client.workflow.getHandle(
      subscriptionWorkflowId(sub.state.subscriptionId),
    );
    const view = await until(
      () => handle.query(viewQuery),
      (v) => v.state.settling !== null && v.state.settling !== undefined,
    );
    const [renewal] = await renewalCharges(sub);
    expect([view.state.settling?.transactionId, renewal.status]).to.deep.equal([renewal.id, 'pending']);
    const held = await storedSubscription(sub.state.subscriptionId);
    expect([held.status, held.cyclesCompleted, held.dunningAttemptCount]).to.deep.equal(['active', 1, 0]);

    const settled = await control('POST', `/payments/${await providerReferenceOf(sub.tenant, renewal.id)}/settle`);
    expect(settled.status, JSON.stringify(settled.body)).to.be.lessThan(300);
    const [paid] = await until(
      () => renewalCharges(sub),
      (charges) => charges[0].status === 'authorized',
      60_000,
    );
    expect(paid.status).to.equal('authorized');

    const after = await until(
      () => storedSubscription(sub.state.subscriptionId),
      (row) => row.cyclesCompleted === 2,
    );
    expect([after.status, after.cyclesCompleted, after.dunningAttemptCount]).to.deep.equal(['active', 2, 0]);
    expect(after.currentPeriodStart.getTime(), 'the new period starts where the paid one ended').to.equal(
      new Date(sub.state.periodEnd).getTime(),
    );
    expect((await renewalCharges(sub)).map((tx) => tx.id)).to.deep.equal([renewal.id]);
    // A renewal is not a transition; a decline would have written dunning_entry.
    expect((await transitionsOf(sub)).map((t) => t.transitionType)).to.deep.equal(['creation']);
    const key = sub.tenant.merchant_secret_key;
    const shown = await api.get(`/merchants/${sub.tenant.merchant_id}/subscriptions/${sub.state.subscriptionId}`, {
      key,
    });
    expect(shown.body.data).to.include({ status: 'active', cycles_completed: 2 });
  });
});
