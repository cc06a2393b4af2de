/**
 * Rule: a test clock's advance moves any number of subscriptions. Its history grows by about three events per
 * subscription, so past signalsPerRun in one run it continues as new (otherwise a clock of ~15,000
 * subscriptions would hit the server's history limit); the next run carries the ones already idle, signals
 * the rest, and marks the clock ready only once every subscription has renewed, none charged twice.
 */
import { expect } from 'chai';
import { temporal } from '@temporalio/proto';
import { TASK_QUEUES } from '../../workflows/definitions';
import { testClockAdvanceWorkflowId } from '../../workflows/lib/test-clock-signals';
import { testClockAdvanceWorkflow } from '../../workflows/test-clock-advance';
import { createTenant } from '../helpers/factories';
import { sellableOffer } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import { cascade } from '../helpers/transactions';
import { chargesOf, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';
const MAR_1 = '2027-03-01T10:00:00.000Z';

describe('Rule: a test clock advance continues as new past signalsPerRun and still waits for every subscription', function () {
  this.timeout(180_000);

  it('three subscriptions, one signalled per run: three runs, all renewed once, the clock ready', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const clock = await createClock(tenant, JAN_31);
    const { offer } = await sellableOffer(tenant);
    const subscribed = [];
    for (let i = 0; i < 3; i += 1) subscribed.push(await subscribeOnClock(tenant, clock.id, offer.id));
    // As the API leaves the row when it starts an advance (here started directly, with a small signalsPerRun).
    await stack()
      .orm.em.fork()
      .execute(`update test_clocks set status = 'advancing', frozen_time = ? where id = ?`, [MAR_1, clock.id]);
    const client = stack().api.deps.temporal.client;
    const handle = await client.workflow.start(testClockAdvanceWorkflow, {
      workflowId: testClockAdvanceWorkflowId(clock.id, MAR_1),
      taskQueue: TASK_QUEUES.payments,
      args: [{ clockId: clock.id, frozenTime: MAR_1, signalsPerRun: 1 }],
    });
    await handle.result();

    const runs: Array<temporal.api.enums.v1.EventType | null | undefined> = [];
    for (let runId: string | undefined = handle.firstExecutionRunId; runId;) {
      const history = await client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
      const last: temporal.api.history.v1.IHistoryEvent = history.events!.at(-1)!;
      runs.push(last.eventType);
      runId = last.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    const { EventType } = temporal.api.enums.v1;
    expect(runs).to.deep.equal([
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
    ]);
    for (const { sub, customerId } of subscribed) {
      expect(await subscriptionOf(tenant, sub.id)).to.include({ cycles_completed: 2 });
      expect(await chargesOf(tenant, customerId)).to.have.length(2);
    }
    const [row] = await stack()
      .orm.em.fork()
      .execute<Array<{ status: string }>>('select status from test_clocks where id = ?', [clock.id]);
    expect(row.status).to.equal('ready');
  });
});
