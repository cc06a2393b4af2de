/**
 * One workflow per advance of a test clock (id test-clock-<clk>-advance-<ms>), started by the API once the clock
 * row says `advancing`. It signals every subscription workflow of the clock's customers with the new time, waits
 * until each reports it is idle there (every renewal, retry, trial end, cancellation due up to that time done, each
 * at its own instant), looks again for subscriptions that appeared meanwhile (a cycle limit that renews), and then
 * marks the clock `ready`.
 */
import { condition, getExternalWorkflowHandle, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { subscriptionWorkflowId } from './subscription';
import { advanceClockSignal, clockIdleSignal } from './lib/test-clock-signals';

const db = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export interface TestClockAdvanceInput {
  clockId: string;
  /** The clock's new time (ISO, as stored). */
  frozenTime: string;
}

export async function testClockAdvanceWorkflow({ clockId, frozenTime }: TestClockAdvanceInput): Promise<void> {
  const idle = new Set<string>();
  setHandler(clockIdleSignal, ({ subscriptionId, frozenTime: at }) => {
    if (at === frozenTime) idle.add(subscriptionId);
  });
  const signalled = new Set<string>();
  const reportTo = workflowInfo().workflowId;
  for (;;) {
    const ids = (await db.testClockSubscriptionIds({ clockId })).filter((id) => !signalled.has(id));
    if (!ids.length) break;
    await Promise.all(
      ids.map(async (id) => {
        signalled.add(id);
        try {
          await getExternalWorkflowHandle(subscriptionWorkflowId(id)).signal(advanceClockSignal, {
            frozenTime,
            reportTo,
          });
        } catch {
          // Its workflow has ended: nothing is due for it any more.
          idle.add(id);
        }
      }),
    );
    await condition(() => [...signalled].every((id) => idle.has(id)));
  }
  await db.markTestClockReady({ clockId, frozenTime });
}
