/**
 * Run by a Temporal schedule (worker/schedules.ts): settles charge attempts whose provider outcome stayed unknown.
 * One activity per attempt, so one failing connector cannot hold up the others; an attempt still unknown is simply
 * tried again by a later run (its lookup and reversal are idempotent under stable provider keys). Each run takes the
 * attempts no run has taken up for longest (listUnresolvedAttempts), so attempts that stay unknown take turns with
 * the others instead of filling every batch.
 */
import { ActivityFailure } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { databaseActivities, providerActivities } from './lib/transaction-activities';

const { listUnresolvedAttempts } = databaseActivities();
const { reconcileAttempt } = providerActivities();
// Keeps the type of a run's tally in one place for the Temporal UI.
type Tally = Record<Awaited<ReturnType<Activities['reconcileAttempt']>> | 'failed', number>;

export const RECONCILE_BATCH = 100;

/** `batch` is for tests and manual runs; the schedule starts it without arguments. */
export async function reconcileUnknownOutcomesWorkflow(batch: number = RECONCILE_BATCH): Promise<Partial<Tally>> {
  const tally: Partial<Tally> = {};
  for (const attempt of await listUnresolvedAttempts(batch)) {
    let outcome: keyof Tally;
    try {
      outcome = await reconcileAttempt(attempt);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      outcome = 'failed';
    }
    tally[outcome] = (tally[outcome] ?? 0) + 1;
  }
  return tally;
}
