/**
 * Rule: clock-driven work runs on the test-clock task queue, served by its own Worker with its own slots, so a big
 * advance never takes the slots live charges run in. The advance's workflow, the subscription workflows of a clock's
 * customers and the renewal charges they run are all on `switchyard-test-clocks`; a live charge stays on
 * `switchyard-payments`.
 */
import { expect } from 'chai';
import { TASK_QUEUES } from '../../workflows/definitions';
import { testClockAdvanceWorkflowId } from '../../workflows/lib/test-clock-signals';
import { createTenant } from '../helpers/factories';
import { sellableOffer } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import { cascade } from '../helpers/transactions';
import { advance, chargesOf, createClock, subscribeOnClock } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';
const FEB_28 = '2027-02-28T12:00:00.000Z';

const taskQueueOf = async (workflowId: string) =>
  (await stack().api.deps.temporal.client.workflow.getHandle(workflowId).describe()).taskQueue;

describe('Rule: clock-driven work runs on the test-clock task queue, live charges on the payments queue', function () {
  this.timeout(180_000);

  it('the advance, the subscription on the clock and its renewal run on switchyard-test-clocks; the first (live) charge on switchyard-payments', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const { sub, customerId, firstCharge } = await subscribeOnClock(tenant, clock.id, offer.id);

    await advance(tenant, clock.id, FEB_28);
    const charges = await chargesOf(tenant, customerId);
    expect(charges.map((tx) => tx.status)).to.deep.equal(['authorized', 'authorized']);
    const renewal = charges[1];

    expect(await taskQueueOf(`transaction-${firstCharge.id}`)).to.equal(TASK_QUEUES.payments);
    expect(await taskQueueOf(testClockAdvanceWorkflowId(clock.id, FEB_28))).to.equal(TASK_QUEUES.testClocks);
    expect(await taskQueueOf(`subscription-${sub.id}`)).to.equal(TASK_QUEUES.testClocks);
    expect(await taskQueueOf(`transaction-${renewal.id}`)).to.equal(TASK_QUEUES.testClocks);
  });
});
