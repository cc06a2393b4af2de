/**
 * A child workflow that outlives its parent: started under an id derived from what it is about, once. ABANDON lets
 * it run on after the parent completes; REJECT_DUPLICATE and the caught "already started" make a retried or replayed
 * start leave the existing run as it is. The operator finds it by the parent's search attributes.
 */
import { ParentClosePolicy, startChild, workflowInfo, WorkflowIdReusePolicy } from '@temporalio/workflow';

export async function startDetachedChild<Input>(
  workflow: (input: Input) => Promise<unknown>,
  workflowId: string,
  input: Input,
): Promise<void> {
  try {
    await startChild(workflow, {
      workflowId,
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: workflowInfo().typedSearchAttributes,
    });
  } catch (error) {
    // (The class lives in @temporalio/common, which workflow code does not import.)
    if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
  }
}
