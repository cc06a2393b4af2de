/**
 * A suspended or inactive merchant's renewals are held (billing hold merchant_not_active) and re-checked daily.
 * Reactivating the merchant (PATCH /merchants/:id status active) ends the hold: its held subscriptions look again
 * within the minute, not at the next daily re-check. Checked on the dev server with the subscription's own workflow.
 */
import { expect } from 'chai';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { subscriptionWorkflowId, viewQuery, type SubscriptionWorkflowView } from '../../workflows/subscription.shared';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { subscribed } from '../helpers/subscriptions';

const DAY = 24 * 60 * 60_000;

describe('PATCH /api/v1/merchants/:id — reactivation ends billing holds', () => {
  it("a reactivated merchant's held renewal is looked at again within the minute, not at the next daily re-check", async function () {
    this.timeout(3 * 60_000);
    // A daily subscription due a few seconds from now, on a merchant that is then suspended.
    const sub = await subscribed(new Date(Date.now() - DAY + 3_000), { billingCycle: 'daily' });
    const merchant = `/merchants/${sub.tenant.merchant_id}`;
    const key = sub.tenant.organization_secret_key;
    const suspended = await api.patch(merchant, { key, body: { status: 'suspended' } });
    expect(suspended.status, suspended.text).to.equal(200);
    const client = stack().api.deps.temporal.client;
    await startSubscriptionWorkflow(client, sub.state);
    const handle = client.workflow.getHandle(subscriptionWorkflowId(sub.state.subscriptionId));
    /** The workflow's hold re-check, once `ready` says it is the one awaited (the workflow runs on its own). */
    const holdCheck = async (ready: (at: number) => boolean): Promise<number | null> => {
      for (let i = 0; i < 90; i += 1) {
        const view: SubscriptionWorkflowView = await handle.query(viewQuery);
        const at = view.state.holdCheckAt ? Date.parse(view.state.holdCheckAt) : null;
        if (at !== null && ready(at)) return at;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      return null;
    };
    try {
      const held = await holdCheck(() => true);
      expect(held, 'the due renewal is held').to.not.equal(null);
      expect(held! - Date.now(), 'a hold is re-checked daily').to.be.greaterThan(DAY / 2);

      const reactivated = await api.patch(merchant, { key, body: { status: 'active' } });
      expect(reactivated.status, reactivated.text).to.equal(200);
      const soon = await holdCheck((at) => at - Date.now() < 2 * 60_000);
      expect(soon, 'the held subscription looks again within the minute').to.not.equal(null);
    } finally {
      await handle.terminate();
    }
  });
});
