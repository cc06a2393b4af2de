import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

// Deletes are idempotent, so plain retries are safe; a minute is ample for an indexed delete.
const { purgeExpiredIdempotencyKeys, purgeRateLimitWindows } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

export interface HousekeepingResult {
  idempotencyKeysPurged: number;
  rateLimitWindowsPurged: number;
}

/** Run by a Temporal schedule (see worker/schedules.ts), so each run is visible in the Temporal UI. */
export async function housekeepingWorkflow(): Promise<HousekeepingResult> {
  const [idempotencyKeysPurged, rateLimitWindowsPurged] = await Promise.all([
    purgeExpiredIdempotencyKeys(),
    purgeRateLimitWindows(),
  ]);
  return { idempotencyKeysPurged, rateLimitWindowsPurged };
}
