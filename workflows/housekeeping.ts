import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

// Deletes are idempotent, so plain retries are safe; a minute is ample for an indexed delete.
const { purgeExpiredIdempotencyKeys, purgeRateLimitWindows, wipeExpiredCardTokens, purgeProviderWebhookReceipts } =
  proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
  });

export interface HousekeepingResult {
  idempotencyKeysPurged: number;
  rateLimitWindowsPurged: number;
  /** Expired card tokens whose sealed PAN/name were wiped, plus expired CVC rows deleted. */
  cardTokensWiped: number;
  /** Provider-webhook receipts (the organization Dashboard's inbound/invalid logs) past their retention. */
  providerWebhookReceiptsPurged: number;
}

/** Run by a Temporal schedule (see worker/schedules.ts), so each run is visible in the Temporal UI. */
export async function housekeepingWorkflow(): Promise<HousekeepingResult> {
  const [idempotencyKeysPurged, rateLimitWindowsPurged, cardTokensWiped, providerWebhookReceiptsPurged] =
    await Promise.all([
      purgeExpiredIdempotencyKeys(),
      purgeRateLimitWindows(),
      wipeExpiredCardTokens(),
      purgeProviderWebhookReceipts(),
    ]);
  return { idempotencyKeysPurged, rateLimitWindowsPurged, cardTokensWiped, providerWebhookReceiptsPurged };
}
