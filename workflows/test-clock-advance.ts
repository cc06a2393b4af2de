/**
 * One workflow per advance of a test clock (id test-clock-<clk>-advance-<ms>), started by the API once the clock
 * row says `advancing`. It signals the subscription workflows of the clock's customers with the new time, waits
 * until each reports it is idle there (every renewal, retry, trial end, cancellation due up to that time done, each
 * at its own instant), looks again for subscriptions that appeared meanwhile (a cycle limit that renews), and then
 * marks the clock `ready`. Each subscription costs the advance about three history events (the signal sent, its
 * acknowledgement, the idle report), so past signalsPerRun in one run it continues as new, carrying the ids already
 * idle: a clock's size is bounded by that list's payload (~27 bytes an id), not by one run's history.
 *
 * With a pace (the deployment's TEST_CLOCK_ADVANCE_*), the subscriptions are signalled a page at a time: at most
 * pageSize of them have work in flight, the next page is signalled once the whole page is idle and after pauseMs
 * of rest, so a big advance leaves the machine's cores to live charges between its pages. Without one (an advance
 * started before paces existed, replaying) every subscription is signalled at once, as then.
 */
import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { subscriptionWorkflowId } from './subscription.shared';
import { advanceClockSignal, advanceProgressQuery, clockIdleSignal, type AdvancePace } from './lib/test-clock-signals';

const db = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Subscriptions signalled in one run at most: ~6,000 history events, well under the server's 50K limit. */
const SIGNALS_PER_RUN = 2_000;

export interface TestClockAdvanceInput {
  clockId: string;
  /** The clock's new time (ISO, as stored). */
  frozenTime: string;
  /** How fast the subscriptions are signalled (absent: all at once). */
  pace?: AdvancePace;
  /** Carried across continue-as-new: the subscriptions that already reported idle at frozenTime (or ended). */
  idle?: string[];
  /** Continue-as-new after signalling this many subscriptions in one run (default SIGNALS_PER_RUN). */
  signalsPerRun?: number;
}

export async function testClockAdvanceWorkflow(input: TestClockAdvanceInput): Promise<void> {
  const { clockId, frozenTime, pace } = input;
  const perRun = input.signalsPerRun ?? SIGNALS_PER_RUN;
  const idle = new Set<string>(input.idle ?? []);
  /** Signalled in this run and not idle yet: the advance waits for these. */
  const waiting = new Set<string>();
  /** Live subscriptions of the clock not signalled yet, as last read. */
  let pending: string[] = [];
  setHandler(clockIdleSignal, ({ subscriptionId, frozenTime: at }) => {
    if (at !== frozenTime) return;
    idle.add(subscriptionId);
    waiting.delete(subscriptionId);
  });
  setHandler(advanceProgressQuery, () => ({ idle: idle.size, waiting: waiting.size, pending: pending.length }));
  const reportTo = workflowInfo().workflowId;
  let signalledThisRun = 0;
  for (;;) {
    // Paced, the list read once is paged through before it is read again; unpaced, it is read before every batch.
    if (!pace || !pending.length) {
      pending = (await db.testClockSubscriptionIds({ clockId })).filter((id) => !idle.has(id));
    }
    if (!pending.length) break;
    // Everything signalled so far is idle (waited for below): only the ids already done need carrying.
    if (signalledThisRun >= perRun) {
      return continueAsNew<typeof testClockAdvanceWorkflow>({ ...input, idle: [...idle] });
    }
    const page = pending.splice(0, Math.min(pace?.pageSize ?? Infinity, perRun - signalledThisRun));
    // Rest between pages (not before the advance's first one): the clock's work yields to live traffic.
    if (pace?.pauseMs && idle.size > 0) await sleep(pace.pauseMs);
    signalledThisRun += page.length;
    for (const id of page) waiting.add(id);
    await Promise.all(
      page.map(async (id) => {
        try {
          await getExternalWorkflowHandle(subscriptionWorkflowId(id)).signal(advanceClockSignal, {
            frozenTime,
            reportTo,
          });
        } catch {
          // Its workflow has ended: nothing is due for it any more.
          idle.add(id);
          waiting.delete(id);
        }
      }),
    );
    await condition(() => waiting.size === 0);
  }
  await db.markTestClockReady({ clockId, frozenTime });
}
