import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import { TASK_QUEUES } from '../workflows/definitions';

export const HOUSEKEEPING_SCHEDULE_ID = 'switchyard-housekeeping';
/** Starts the fan-out of any event still in the webhook outbox (see workflows/webhook-fan-out.ts). */
export const WEBHOOK_SWEEP_SCHEDULE_ID = 'switchyard-webhook-outbox-sweep';

/** Settles charge attempts whose provider outcome stayed unknown (workflows/reconcile-unknown-outcomes.ts). */
export const RECONCILE_SCHEDULE_ID = 'switchyard-reconcile-unknown-outcomes';

/** Hands pending charges whose workflows all closed back to a settlement or resolution (workflows/housekeeping.ts). */
export const PENDING_CHARGE_SWEEP_SCHEDULE_ID = 'switchyard-pending-transaction-sweep';

/** Starts delivery of any e-mail whose post-commit kick was lost (workflows/mail-delivery.ts). */
export const MAIL_SWEEP_SCHEDULE_ID = 'switchyard-mail-outbox-sweep';

/** Creates the housekeeping, webhook-sweep, reconciler, pending-charge and mail sweep schedules once; later starts find them already there. */
export async function ensureSchedules(client: Client): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: HOUSEKEEPING_SCHEDULE_ID,
      spec: { intervals: [{ every: '15 minutes' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'housekeepingWorkflow',
        taskQueue: TASK_QUEUES.payments,
        workflowId: 'switchyard-housekeeping-run',
      },
      policies: { overlap: 'SKIP', catchupWindow: '1 hour' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  try {
    await client.schedule.create({
      scheduleId: WEBHOOK_SWEEP_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 minute' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'webhookOutboxSweepWorkflow',
        taskQueue: TASK_QUEUES.webhooks,
        workflowId: 'switchyard-webhook-outbox-sweep-run',
      },
      // A missed run needs no catching up: the next one sweeps everything still there.
      policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  try {
    await client.schedule.create({
      scheduleId: RECONCILE_SCHEDULE_ID,
      spec: { intervals: [{ every: '5 minutes' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'reconcileUnknownOutcomesWorkflow',
        taskQueue: TASK_QUEUES.payments,
        workflowId: 'switchyard-reconcile-unknown-outcomes-run',
      },
      // Each run takes up whatever is still unresolved: a missed run needs no catching up.
      policies: { overlap: 'SKIP', catchupWindow: '5 minutes' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  try {
    await client.schedule.create({
      scheduleId: PENDING_CHARGE_SWEEP_SCHEDULE_ID,
      spec: { intervals: [{ every: '15 minutes' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'pendingTransactionSweepWorkflow',
        taskQueue: TASK_QUEUES.payments,
        workflowId: 'switchyard-pending-transaction-sweep-run',
      },
      // Each run takes up whatever is still orphaned: a missed run needs no catching up.
      policies: { overlap: 'SKIP', catchupWindow: '15 minutes' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  try {
    await client.schedule.create({
      scheduleId: MAIL_SWEEP_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 minute' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'mailOutboxSweepWorkflow',
        taskQueue: TASK_QUEUES.webhooks,
        workflowId: 'switchyard-mail-outbox-sweep-run',
      },
      policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}
