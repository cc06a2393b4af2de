/**
 * Every wait of the API on a workflow has a deadline: a stopped worker must not keep requests (and what they hold)
 * waiting forever. When the deadline passes the pending Temporal calls are aborted and WorkflowWaitTimeout is
 * thrown; the workflow itself keeps running, so the caller answers "still processing, read it later".
 */
import type { Client } from '@temporalio/client';

export class WorkflowWaitTimeout extends Error {
  constructor() {
    super('The wait on the workflow passed its deadline');
  }
}

export async function withWorkflowDeadline<T>(client: Client, waitMs: number, work: () => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new WorkflowWaitTimeout());
      controller.abort();
    }, waitMs);
  });
  try {
    // The race answers on time even if an aborted call were slow to settle; the abort frees its gRPC stream.
    return await Promise.race([client.withAbortSignal(controller.signal, work), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
