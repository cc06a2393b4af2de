/**
 * The state one run of the subscription workflow shares between its loop (subscription.ts), its renewal and dunning
 * cycle (subscription-cycle.ts) and its Update, signal and query handlers (subscription-handlers.ts): the
 * subscription's state, the step counter, the FIFO lock every move takes, and the writes of a move to the read model.
 * Workflow code: deterministic, and it reaches the database only through the subscription activities.
 */
import { getExternalWorkflowHandle, isCancellation, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
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
      run.state = move.state;
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
