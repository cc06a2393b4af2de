/** Worker options every Worker of the process uses (and the bench's Temporal ceiling, so it measures the same). */
import type { WorkerOptions } from '@temporalio/worker';

export const workerTuning: Partial<WorkerOptions> = {};
