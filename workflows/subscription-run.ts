/**
 * The state one run of the subscription workflow shares between its loop (subscription.ts), its renewal and dunning
 * cycle (subscription-cycle.ts) and its Update, signal and query handlers (subscription-handlers.ts): the
 * subscription's state, the step counter, the FIFO lock every move takes, and the writes of a move to the read model.
 * Workflow code: deterministic, and it reaches the database only through the subscription activities.
 */
import {
  getExternalWorkflowHandle,
  isCancellation,
  proxyLocalActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SubscriptionWorkflowInput } from './subscription.shared';
import { SEARCH_ATTRIBUTE_KEYS } from './definitions';
import { fifoLock, type FifoLock } from './lib/fifo-lock';
import { clockIdleSignal } from './lib/test-clock-signals';
import { subscriptionActivities } from './lib/subscription-activities';
import { DEFAULT_DUNNING_SCHEDULE_DAYS } from './lib/subscription-rules';
import type { SubscriptionState, SubscriptionStep } from './lib/subscription-state';
import { nextWake } from './lib/subscription-billing';
import type * as moves from './lib/subscription-moves';

export const db = subscriptionActivities();

/**
 * A wake-up's renewal reads and writes (prepareRenewal, settleRenewal, renewalOutcome) run first as local
 * activities, inside the workflow task that needs them: no activity task scheduled, dispatched and completed, and no
 * workflow task after it. Their budget (6 s) stays under the point where the SDK heartbeats a long workflow task
 * (8 s of its 10 s timeout), so a local step never spans workflow tasks while the attention timer is pending: the
 * time-skipping test server can fire that timer between a task's heartbeats and then refuses the cancel the task
 * sends (temporalio/sdk-java#3088; the real server accepts it). Past the budget (the database is down or slow) the
 * same step runs as a regular activity, retried without a limit. The steps are idempotent (ids and step keys derive
 * from the subscription, the cycle and the try): a local try that committed and then timed out writes nothing twice
 * when the activity runs it again. Only the wake-up's own path uses them: an Update handler may run while the
 * loop's timer is pending, so its steps stay regular activities.
 */
const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '5 seconds',
  scheduleToCloseTimeout: '6 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2 },
});
const localFirst =
  <A extends unknown[], R>(inTask: (...args: A) => Promise<R>, activity: (...args: A) => Promise<R>) =>
  (...args: A): Promise<R> =>
    inTask(...args).catch((error: unknown) => {
      if (isCancellation(error)) throw error;
      return activity(...args);
    });
export const renewalSteps = {
  prepareRenewal: localFirst(local.prepareRenewal, db.prepareRenewal),
  settleRenewal: localFirst(local.settleRenewal, db.settleRenewal),
  renewalOutcome: localFirst(local.renewalOutcome, db.renewalOutcome),
};

export const iso = (ms: number) => new Date(ms).toISOString();

export interface SubscriptionRun {
  /** The subscription as the workflow holds it; the read model follows it step by step. */
  state: SubscriptionState;
  /** Steps written so far (across continue-as-new): the next step's key is `<workflow id>:<steps + 1>`. */
  steps: number;
  /** Set by anything that changed the state: the loop looks at its next wake-up again. */
  changed: boolean;
  readonly schedule: number[];
  readonly workflowId: string;
  /** One move at a time: operations, signals and wake-ups queue on it. */
  readonly lock: FifoLock;
  /**
   * What time it is for this subscription: workflow (real) time, or on a test clock the clock's time as the
   * workflow has reached it. Everything that needs "now" asks this; the billing logic is the same either way.
   */
  now(): number;
  setAttention(value: 'retrying' | 'failed' | 'settling' | null): void;
  /** The read-model step of a move, numbered next (nothing is written or counted here). */
  stepOf(move: moves.Move): SubscriptionStep;
  /** A written step is the state from now on. */
  moved(move: moves.Move): void;
  write(move: moves.Move): Promise<void>;
  /** In-memory only (nothing the read model shows changes): the loop looks at its next wake-up again. */
  keep(next: SubscriptionState): void;
  /** Tells a clock's advance that this subscription has done everything due up to frozenTime. */
  reportIdle(reportTo: string, frozenTime: string): Promise<void>;
}

export function subscriptionRun(input: SubscriptionWorkflowInput): SubscriptionRun {
  const run: SubscriptionRun = {
    state: input.state,
    steps: input.stepCount ?? 0,
    changed: false,
    schedule: input.dunningScheduleDays ?? [...DEFAULT_DUNNING_SCHEDULE_DAYS],
    workflowId: workflowInfo().workflowId,
    lock: fifoLock(),
    now: () => (run.state.testClock ? Date.parse(run.state.testClock.now) : Date.now()),
    setAttention: (value) => upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionAttention, value }]),
    stepOf: (move) => {
      const wake = nextWake(move.state, run.schedule);
      return {
        state: move.state,
        key: `${run.workflowId}:${run.steps + 1}`,
        at: iso(run.now()),
        transition: move.transition,
        events: move.events,
        actionRequired: move.actionRequired ?? null,
        dunningNextRetryAt:
          move.state.status === 'dunning' && wake?.reason === 'dunning_retry' ? wake.at.toISOString() : null,
      };
    },
    moved: (move) => {
      const before = run.state.status;
      run.state = move.state;
      // An upsert is a command, a history event and a visibility write: a renewal that stays active needs none.
      if (run.state.status !== before)
        upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: run.state.status }]);
      run.changed = true;
    },
    write: async (move) => {
      const step = run.stepOf(move);
      run.steps += 1;
      await db.writeSubscriptionStep(step);
      run.moved(move);
    },
    keep: (next) => {
      run.state = next;
      run.changed = true;
    },
    reportIdle: async (reportTo, frozenTime) => {
      try {
        await getExternalWorkflowHandle(reportTo).signal(clockIdleSignal, {
          subscriptionId: run.state.subscriptionId,
          frozenTime,
        });
      } catch (error) {
        // The advance is gone (the clock was deleted meanwhile): nobody waits for the answer.
        if (isCancellation(error)) throw error;
      }
    },
  };
  return run;
}
