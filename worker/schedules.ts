import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import { TASK_QUEUES } from '../workflows/definitions';

export const HOUSEKEEPING_SCHEDULE_ID = 'switchyard-housekeeping';

/** Creates the housekeeping schedule once; later starts find it already there. */
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
}
