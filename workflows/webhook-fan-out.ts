/**
 * Workflows around the webhook outbox (activities/webhooks/fan-out.ts does the work):
 *
 * - webhookOutboxSweepWorkflow: run every minute by a Temporal schedule (worker/schedules.ts) and once whenever
 *   an outbox listener (re)connects; fans out every event still in the outbox — those whose post-commit kick was
 *   lost (no listener, process died between commit and kick, or mid-fan-out).
 * - webhookRecoverWorkflow: one manual delivery per event whose delivery to an endpoint failed since a time.
 */
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';

// Idempotent batches (claimed rows, deduplicating workflow ids): plain retries are safe.
const { sweepWebhookOutbox, startRecoveryBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Events per sweep batch, and at most this many batches per run (the next run continues). */
export const SWEEP_BATCH = 200;
const SWEEP_MAX_BATCHES = 5;
const RECOVER_BATCH = 100;

export async function webhookOutboxSweepWorkflow(): Promise<{ fannedOut: number }> {
  let fannedOut = 0;
  for (let batch = 0; batch < SWEEP_MAX_BATCHES; batch += 1) {
    const result = await sweepWebhookOutbox(SWEEP_BATCH);
    fannedOut += result.fannedOut;
    if (!result.more) break;
  }
  return { fannedOut };
}

export interface RecoverInput {
  merchantId: string;
  configId: string;
  /** ISO 8601 bounds on when the delivery failed. */
  since: string;
  until: string;
  /** Distinguishes this recovery's workflow ids from the original deliveries and from other recoveries. */
  suffix: string;
  after?: string | null;
  queued?: number;
}

export async function webhookRecoverWorkflow(input: RecoverInput): Promise<{ queued: number }> {
  let { after = null, queued = 0 } = input;
  for (;;) {
    const batch = await startRecoveryBatch({
      merchantId: input.merchantId,
      configId: input.configId,
      since: input.since,
      until: input.until,
      suffix: input.suffix,
      after,
      limit: RECOVER_BATCH,
    });
    queued += batch.queued;
    if (!batch.cursor) return { queued };
    after = batch.cursor;
    if (workflowInfo().continueAsNewSuggested)
      return continueAsNew<typeof webhookRecoverWorkflow>({ ...input, after, queued });
  }
}
