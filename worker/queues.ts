/**
 * The slots of each task queue's Worker. The test-clock queue's are few and set apart (TEST_CLOCK_WORKER_*): an
 * advance that runs a thousand renewals holds at most that many workflow tasks and activities at once, so the process
 * keeps its time for live charges. The payments and webhooks Workers keep the SDK's defaults.
 */
import type { WorkerOptions } from '@temporalio/worker';
import type { Config } from '../domain/platform/config';
import { TASK_QUEUES } from '../workflows/definitions';

type Slots = Pick<WorkerOptions, 'maxConcurrentWorkflowTaskExecutions' | 'maxConcurrentActivityTaskExecutions'>;

export function workerSlotsOf(taskQueue: string, config: Config): Slots {
  if (taskQueue !== TASK_QUEUES.testClocks) return {};
  return {
    maxConcurrentWorkflowTaskExecutions: config.testClocks.worker.maxWorkflowTasks,
    maxConcurrentActivityTaskExecutions: config.testClocks.worker.maxActivities,
  };
}
