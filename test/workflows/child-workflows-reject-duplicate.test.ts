/**
 * Nothing re-charges a final transaction: a charge workflow started as a child — a
 * subscription's renewal — and the children a charge starts itself (its settlement, a duplicate first charge's
 * refund) are started with WorkflowIdReusePolicy REJECT_DUPLICATE, so a reset or replayed parent finds the child it
 * started, running or closed, and never runs it a second time. Read from the histories Temporal recorded.
 */
import { expect } from 'chai';
import { temporal } from '@temporalio/proto';
import type { WorkflowHandle } from '@temporalio/client';
import { viewQuery } from '../../workflows/subscription.shared';
import { transactionWorkflowId } from '../../workflows/transaction.shared';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { subscribed } from '../helpers/subscriptions';
import { stack } from '../helpers/stack';
import { cascade, charge } from '../helpers/transactions';
import { createTenant } from '../helpers/factories';

const DAY = 86_400_000;
const { WorkflowIdReusePolicy } = temporal.api.enums.v1;

/** Each child start a workflow's history records: the child's workflow id and its reuse policy. */
async function childStarts(handle: WorkflowHandle) {
  const { events } = await handle.fetchHistory();
  return (events ?? [])
    .map((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)
    .filter((started) => started != null)
    .map((started) => ({ workflowId: started.workflowId, policy: started.workflowIdReusePolicy }));
}

describe('Child workflows of a charge are started at most once (REJECT_DUPLICATE)', () => {
  describe('a subscription renewal (time-skipping server)', () => {
    const { server, serverNow, worker, start } = useSubscriptionWorkflows('test-child-reject-duplicate');

    it('the renewal charge child is started with REJECT_DUPLICATE', async function () {
      this.timeout(60_000);
      const sub = await subscribed(await serverNow(), { freeTrial: true, trialDays: 14 });
      const handle = await start(sub);
      await (
        await worker()
      ).runUntil(async () => {
        await server.env.sleep(15 * DAY);
        expect((await handle.query(viewQuery)).state.status).to.equal('active');
      });
      const charges = (await childStarts(handle)).filter((child) => child.workflowId?.startsWith('transaction-'));
      expect(charges).to.have.length.greaterThan(0);
      for (const child of charges)
        expect(child.policy, child.workflowId!).to.equal(
          WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
        );
    });
  });

  it("a pending pix charge's settlement child is started with REJECT_DUPLICATE", async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_b']);
    const pix = (
      await charge(tenant, {
        payment_method: 'pix',
        charge_type: 'payment',
        country: 'BR',
        amount: 4990,
        currency: 'BRL',
      })
    ).body.data;
    expect(pix.status).to.equal('pending');
    const handle = stack().api.deps.temporal.client.workflow.getHandle(transactionWorkflowId(pix.id));
    await handle.result();
    expect(await childStarts(handle)).to.deep.equal([
      {
        workflowId: `transaction-settlement-${pix.id}`,
        policy: WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
      },
    ]);
  });
});
