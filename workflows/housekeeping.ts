import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

// Deletes are idempotent, so plain retries are safe; a minute is ample for an indexed delete.
const {
  purgeExpiredIdempotencyKeys,
  purgeRateLimitWindows,
  wipeExpiredCardTokens,
  purgeProviderWebhookReceipts,
  purgeSpentDashboardTokens,
  purgeSentMail,
} = proxyActivities<Activities>({
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
  /** Refresh-token rows of dead session families plus used or expired password-reset tokens. */
  dashboardTokensPurged: number;
  /** Outbox rows of e-mails the SMTP server accepted more than a day ago. */
  sentMailPurged: number;
}

/** Run by a Temporal schedule (see worker/schedules.ts), so each run is visible in the Temporal UI. */
export async function housekeepingWorkflow(): Promise<HousekeepingResult> {
  const [
    idempotencyKeysPurged,
    rateLimitWindowsPurged,
    cardTokensWiped,
    providerWebhookReceiptsPurged,
    dashboardTokensPurged,
    sentMailPurged,
  ] = await Promise.all([
    purgeExpiredIdempotencyKeys(),
    purgeRateLimitWindows(),
    wipeExpiredCardTokens(),
    purgeProviderWebhookReceipts(),
    purgeSpentDashboardTokens(),
    purgeSentMail(),
  ]);
  return {
    idempotencyKeysPurged,
    rateLimitWindowsPurged,
    cardTokensWiped,
    providerWebhookReceiptsPurged,
    dashboardTokensPurged,
    sentMailPurged,
  };
}

// The sweep looks at workflows and starts them: one activity per batch, retried like the purges.
const { resumeOrphanedPendingTransactions } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

export const PENDING_CHARGE_SWEEP_BATCH = 100;

/**
 * Run by a Temporal schedule (worker/schedules.ts): a transaction still pending with no workflow left to finish it
 * (its charge, settlement and resolution all closed — terminated, failed, timed out) is handed back to a settlement or
 * to its resolution (activities/transactions/pending-transaction-sweep.ts). `merchantId` limits a manual run (or a test) to
 * one merchant; the schedule starts it without arguments.
 */
export async function pendingTransactionSweepWorkflow(
  input: { merchantId?: string | null } = {},
): Promise<{ resumed: number }> {
  const resumed = await resumeOrphanedPendingTransactions({
    limit: PENDING_CHARGE_SWEEP_BATCH,
    merchantId: input.merchantId,
  });
  return { resumed };
}
