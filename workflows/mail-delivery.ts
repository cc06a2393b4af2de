/**
 * Outgoing e-mail (domain/mail/mail.outbox.ts): one delivery workflow per outbox row, id mail-<id> with
 * REJECT_DUPLICATE, so the post-commit kick and the sweep never start two. The activity retries until the SMTP
 * server accepts the message (a mail server down for hours delays mail, it does not lose it); an accepted message
 * is marked sent and never handed over again.
 *
 * mailOutboxSweepWorkflow runs every minute (worker/schedules.ts) and starts delivery for any row whose kick was
 * lost.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { deliverMail } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '15 minutes' },
});
const { startPendingMailDeliveries } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

export async function mailDeliveryWorkflow(mailId: string): Promise<string> {
  return deliverMail(mailId);
}

export async function mailOutboxSweepWorkflow(): Promise<{ started: number }> {
  return { started: await startPendingMailDeliveries() };
}
