/**
 * Rule: a test clock's advance is paced, so its work yields to live charges. At most the pace's pageSize
 * subscriptions have work in flight (signalled and not yet idle at the new time), and the advance rests pauseMs
 * between two pages; the API starts every advance at the deployment's pace (TEST_CLOCK_ADVANCE_*). Checked from the
 * advance's history: the signals it sent, the idle reports it received and its timers, in order.
 */
import { expect } from 'chai';
import type { temporal } from '@temporalio/proto';
import { TASK_QUEUES } from '../../workflows/definitions';
import { advanceProgressQuery, testClockAdvanceWorkflowId } from '../../workflows/lib/test-clock-signals';
import { testClockAdvanceWorkflow } from '../../workflows/test-clock-advance';
import { createTenant, type Tenant } from '../helpers/factories';
import { sellableOffer } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import { cascade } from '../helpers/transactions';
import { advance, chargesOf, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';

const JAN_31 = '2027-01-31T10:00:00.000Z';
const MAR_1 = '2027-03-01T10:00:00.000Z';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const client = () => stack().api.deps.temporal.client;
const payloadOf = (payload: temporal.api.common.v1.IPayload) =>
  JSON.parse(Buffer.from(payload.data!).toString('utf8')) as Record<string, unknown>;
const durationMs = (duration: { seconds?: unknown; nanos?: number | null }) =>
  Number(duration.seconds ?? 0) * 1000 + (duration.nanos ?? 0) / 1e6;

/** The subscriptions with work in flight after each event, and the pauses (ms), in the order the history has them. */
function inFlightAndPauses(events: HistoryEvent[]) {
  const inFlight = new Set<string>();
  const sizes: number[] = [];
  const pauses: number[] = [];
  for (const event of events) {
    const sent = event.signalExternalWorkflowExecutionInitiatedEventAttributes;
    if (sent?.signalName === 'advanceClock') inFlight.add(sent.workflowExecution!.workflowId!);
    const received = event.workflowExecutionSignaledEventAttributes;
    if (received?.signalName === 'clockIdle') {
      inFlight.delete(`subscription-${payloadOf(received.input!.payloads![0]).subscriptionId as string}`);
    }
    const timer = event.timerStartedEventAttributes;
    if (timer) pauses.push(durationMs(timer.startToFireTimeout!));
    sizes.push(inFlight.size);
  }
  return { most: Math.max(...sizes), pauses };
}

async function clockWithSubscriptions(tenant: Tenant, count: number) {
  await cascade(tenant, ['provider_a']);
  const clock = await createClock(tenant, JAN_31);
  const { offer } = await sellableOffer(tenant);
  const subscribed = [];
  for (let i = 0; i < count; i += 1) subscribed.push(await subscribeOnClock(tenant, clock.id, offer.id));
  return { clock, subscribed };
}

describe('Rule: a test clock advance has at most its pace’s page of subscriptions in flight and rests between pages', function () {
  this.timeout(180_000);

  it('three subscriptions at one a page: never two in flight, a pause between pages, all renewed once, the clock ready', async () => {
    const tenant = await createTenant();
    const { clock, subscribed } = await clockWithSubscriptions(tenant, 3);
    // As the API leaves the row when it starts an advance (here started directly, with a pace of one a page).
    await stack()
      .orm.em.fork()
      .execute(`update test_clocks set status = 'advancing', frozen_time = ? where id = ?`, [MAR_1, clock.id]);
    const handle = await client().workflow.start(testClockAdvanceWorkflow, {
      workflowId: testClockAdvanceWorkflowId(clock.id, MAR_1),
      taskQueue: TASK_QUEUES.testClocks,
      args: [{ clockId: clock.id, frozenTime: MAR_1, pace: { pageSize: 1, pauseMs: 50 } }],
    });
    await handle.result();

    const { most, pauses } = inFlightAndPauses((await handle.fetchHistory()).events!);
    expect(most).to.equal(1);
    expect(pauses).to.deep.equal([50, 50]);
    expect(await handle.query(advanceProgressQuery)).to.deep.equal({ idle: 3, waiting: 0, pending: 0 });
    for (const { sub, customerId } of subscribed) {
      expect(await subscriptionOf(tenant, sub.id)).to.include({ cycles_completed: 2 });
      expect(await chargesOf(tenant, customerId)).to.have.length(2);
    }
    const [row] = await stack()
      .orm.em.fork()
      .execute<Array<{ status: string }>>('select status from test_clocks where id = ?', [clock.id]);
    expect(row.status).to.equal('ready');
  });

  it('POST /test-clocks/:id/advance starts the advance at the deployment’s pace', async () => {
    const tenant = await createTenant();
    const { clock } = await clockWithSubscriptions(tenant, 1);
    await advance(tenant, clock.id, MAR_1);

    const history = await client().workflow.getHandle(testClockAdvanceWorkflowId(clock.id, MAR_1)).fetchHistory();
    const started = history.events![0].workflowExecutionStartedEventAttributes!;
    expect(payloadOf(started.input!.payloads![0]).pace).to.deep.equal(stack().config.testClocks.advance);
  });
});
