/**
 * What a test clock's advance and the subscription workflows on that clock say to each other. Kept apart
 * from both workflows so neither imports the other.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

export interface AdvanceClock {
  /** The clock's new time (ISO): the subscription runs every wake due up to it, each at its own instant. */
  frozenTime: string;
  /** The advance workflow to tell once the subscription is idle at frozenTime. */
  reportTo: string;
}

/** To a subscription workflow on the clock: the clock moved. */
export const advanceClockSignal = defineSignal<[AdvanceClock]>('advanceClock');

/** From a subscription workflow to the advance: it has done everything due up to frozenTime (or it has ended). */
export const clockIdleSignal = defineSignal<[{ subscriptionId: string; frozenTime: string }]>('clockIdle');

export const testClockAdvanceWorkflowId = (clockId: string, frozenTime: string) =>
  `test-clock-${clockId}-advance-${Date.parse(frozenTime)}`;

/**
 * How fast an advance moves its subscriptions (the deployment's TEST_CLOCK_ADVANCE_*): at most pageSize of them
 * have work in flight at once, and the advance rests pauseMs between two pages.
 */
export interface AdvancePace {
  pageSize: number;
  pauseMs: number;
}

/** Where an advance stands: subscriptions idle at the new time, signalled and not idle yet, not signalled yet. */
export interface AdvanceProgress {
  idle: number;
  waiting: number;
  pending: number;
}
export const advanceProgressQuery = defineQuery<AdvanceProgress>('advanceProgress');
