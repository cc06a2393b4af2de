/** Test clocks: the workflow that moves a clock's subscriptions to its new time. */
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { TASK_QUEUES } from '../../workflows/definitions';
import { testClockAdvanceWorkflowId, type AdvancePace } from '../../workflows/lib/test-clock-signals';
import { testClockAdvanceWorkflow } from '../../workflows/test-clock-advance';

/**
 * Starts the advance of a clock to `frozenTime` (ISO), on the test-clock task queue (clock work never takes the
 * slots of live charges), at the deployment's pace (config.testClocks.advance; without one every subscription is
 * signalled at once). One workflow per clock and target time: a second start of the same advance (a retried
 * request) joins the first.
 */
export async function startTestClockAdvance(
  client: Client,
  clockId: string,
  frozenTime: string,
  pace?: AdvancePace,
): Promise<void> {
  try {
    await client.workflow.start(testClockAdvanceWorkflow, {
      workflowId: testClockAdvanceWorkflowId(clockId, frozenTime),
      taskQueue: TASK_QUEUES.testClocks,
      args: [{ clockId, frozenTime, pace }],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
