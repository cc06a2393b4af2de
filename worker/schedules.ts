import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import { TASK_QUEUES } from '../workflows/definitions';

export const HOUSEKEEPING_SCHEDULE_ID = 'switchyard-housekeeping';
/** Starts the fan-out of any event still in the webhook outbox (see workflows/webhook-fan-out.ts). */
export const WEBHOOK_SWEEP_SCHEDULE_ID = 'switchyard-webhook-outbox-sweep';

/** Creates the housekeeping and webhook-sweep schedules once; later starts find them already there. */
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
}
