/**
 * One long-lived workflow per subscription (id subscription-<sub id>). It owns time: it sleeps on a durable timer
 * until the next thing due (trial end, renewal, dunning retry, scheduled cancellation, cycle limit, a renewal's
 * settlement) and never polls otherwise. Renewals run the charge-cascade workflow as a child under ids derived from
 * the subscription id, the cycle and the try, started at most once (REJECT_DUPLICATE); what the cycle becomes is
 * read from the stored transaction, never guessed from how the child ended. Operations arrive as Updates whose
 * validators apply the state table before they are accepted; every move is written to the read model (sub_ row,
 * sbt_ transitions, subscription.* events) by an activity before the Update answers. One move at a time, really:
 * operations, signals and wake-ups queue on one FIFO lock. The loop never dies of a fault: its activities retry
 * without a limit, and anything else is shown to operators (SubscriptionAttention) and tried again later.
 * History stays bounded by continue-as-new, which carries the state and the step counter.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SubscriptionWorkflowInput } from './subscription.shared';
import { SEARCH_ATTRIBUTE_KEYS } from './definitions';
import { isLive } from './lib/subscription-rules';
import { nextWake } from './lib/subscription-billing';
import { iso, subscriptionRun, type SubscriptionRun } from './subscription-run';
import { registerSubscriptionHandlers } from './subscription-handlers';
import { subscriptionCycle } from './subscription-cycle';

/** Continue-as-new after this many steps at the latest, even if the server has not suggested it. */
const STEPS_PER_RUN = 500;

/**
 * The loop's "wait until" on a test clock: the next wake due by the clock's time runs at its own instant (the
 * wake's time, never before the instant already reached); with none left, the subscription stands at the clock's
 * time, tells the advance, and waits for the clock to move (or an operation). No timer: real time plays no part.
 */
async function stepOnClock(run: SubscriptionRun, attend: () => Promise<void>): Promise<void> {
  run.changed = false;
  const dueOnClock = () => {
    const wake = nextWake(run.state, run.schedule);
    return wake && wake.at.getTime() <= Date.parse(run.state.testClock!.frozenTime) ? wake : null;
  };
  const clock = run.state.testClock!;
  if (dueOnClock()) {
    await run.lock.run(async () => {
      const wake = dueOnClock();
      const at = run.state.testClock!.now;
      if (wake)
        run.state = {
          ...run.state,
          testClock: { ...run.state.testClock!, now: iso(Math.max(Date.parse(at), wake.at.getTime())) },
        };
    });
    return attend();
  }
  if (clock.now !== clock.frozenTime || clock.reportTo) {
    return run.lock.run(async () => {
      const current = run.state.testClock!;
      if (dueOnClock()) return; // the clock moved meanwhile: the loop runs what is now due first
      const { reportAt, ...rest } = current;
      run.state = { ...run.state, testClock: { ...rest, now: current.frozenTime, reportTo: null } };
      if (current.reportTo) await run.reportIdle(current.reportTo, reportAt ?? current.frozenTime);
    });
  }
  await condition(() => run.changed);
}

export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<string> {
  const run = subscriptionRun(input);
  const firstStep = run.steps;
  const { attend, authenticate } = subscriptionCycle(run);
  registerSubscriptionHandlers(run, authenticate);

  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: run.state.status }]);
  if (run.state.testClock)
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.TestClockId, value: run.state.testClock.id }]);
  // A cancelled subscription whose last renewal is still settling stays until its outcome is applied.
  while (isLive(run.state.status) || run.state.settling) {
    if (workflowInfo().continueAsNewSuggested || run.steps - firstStep >= (input.stepsPerRun ?? STEPS_PER_RUN)) {
      await condition(() => !run.lock.busy && allHandlersFinished());
      return continueAsNew<typeof subscriptionWorkflow>({
        ...input,
        state: run.state,
        dunningScheduleDays: run.schedule,
        stepCount: run.steps,
      });
    }
    if (run.state.testClock) {
      await stepOnClock(run, attend);
      continue;
    }
    const wake = nextWake(run.state, run.schedule);
    run.changed = false;
    const timeout = wake ? Math.max(0, wake.at.getTime() - run.now()) : undefined;
    const interrupted =
      timeout === undefined ? await condition(() => run.changed) : await condition(() => run.changed, timeout);
    if (!interrupted) await attend();
  }
  // Ended while a clock's advance waits for it: nothing more is due, ever.
  const clock = run.state.testClock;
  if (clock?.reportTo) await run.reportIdle(clock.reportTo, clock.reportAt ?? clock.frozenTime);
  await condition(allHandlersFinished);
  return run.state.status;
}
