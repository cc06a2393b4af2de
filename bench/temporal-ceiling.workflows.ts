/**
 * No-op workflows for bench/temporal-ceiling.ts (bundled on their own; never registered by the real worker): the
 * shape of a charge — local activities for database steps, regular activities for provider calls — with nothing
 * inside the activities, so what they cost is Temporal's alone.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

interface NoopActivities {
  noop(step: number): Promise<number>;
}

const remote = proxyActivities<NoopActivities>({ startToCloseTimeout: '15 seconds' });
const local = proxyLocalActivities<NoopActivities>({ startToCloseTimeout: '15 seconds' });

/** `shape`: one letter per step in order, `a` a regular activity, `l` a local activity. */
export async function ceilingWorkflow(shape: string): Promise<number> {
  let total = 0;
  for (const [index, step] of [...shape].entries()) {
    total += await (step === 'l' ? local : remote).noop(index);
  }
  return total;
}
