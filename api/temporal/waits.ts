/** How the API waits on workflows: start-or-join by id, and a deadline on every wait. */
import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  type Workflow,
  type WorkflowResultType,
  type WorkflowStartOptions,
} from '@temporalio/client';

/**
 * Starts the workflow and waits for its result; when one with the id already exists — running (USE_EXISTING) or
 * closed (REJECT_DUPLICATE) — waits for that one instead. Ids derive from the Idempotency-Key, so a retry of a
 * request whose answer was lost joins the first run and never does its work twice.
 */
export async function startOrJoin<W extends Workflow>(
  client: Client,
  workflow: W,
  options: WorkflowStartOptions<W> & { workflowId: string },
): Promise<WorkflowResultType<W>> {
  try {
    return await client.workflow.execute(workflow, {
      ...options,
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return client.workflow.getHandle<W>(options.workflowId).result();
  }
}

/** A wait on a workflow passed its deadline; the workflow itself keeps running. */
export class WorkflowWaitTimeout extends Error {
  constructor() {
    super('The wait on the workflow passed its deadline');
  }
}

/**
 * Every wait of the API on a workflow has a deadline (WORKFLOW_WAIT_MS): a stopped worker must not keep requests
 * (and what they hold) waiting forever. When it passes, the pending Temporal calls are aborted and
 * WorkflowWaitTimeout is thrown; the caller answers "still processing, read it later".
 */
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
