/**
 * The subscription workflow suites' harness on the time-skipping server: a worker with the real activities, a
 * start helper and the server's clock. Each test gets its own task queue, and every workflow a test started is
 * terminated after it: a failed or timed-out test cannot leave a worker or a sleeping workflow in the next one's way.
 */
import { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { createActivities } from '../../activities';
import type { Orm } from '../../db/orm';
import { vaultSettingsOf } from '../../activities/vault';
import { subscriptionWorkflow } from '../../workflows/subscription';
import { subscriptionWorkflowId, type SubscriptionWorkflowInput } from '../../workflows/subscription.shared';
import { useTimeSkipping } from './time-skipping';
import { stack } from './stack';
import type { Subscribed } from './subscriptions';
import { workflowSpanSinks } from '../../worker/telemetry';

export function useSubscriptionWorkflows(name: string) {
  const server = useTimeSkipping();
  let taskQueue = '';
  let tests = 0;
  const started: WorkflowHandle[] = [];
  beforeEach(() => {
    taskQueue = `${name}-${++tests}`;
  });
  afterEach(async () => {
    // Terminating an already closed workflow fails; that is the expected case.
    await Promise.allSettled(started.splice(0).map((handle) => handle.terminate()));
  });

  return {
    server,
    /** This test's task queue. */
    taskQueue: () => taskQueue,
    serverNow: async () => new Date(Number(await server.env.currentTimeMs())),
    /**
     * A worker with the real activities; `orm` lets a test put its database behind a proxy it can cut, `vault` gives
     * its charges other card settings.
     */
    worker: (dunningScheduleDays?: number[], orm: Orm = stack().orm, vault = vaultSettingsOf(stack().config)) =>
      Worker.create({
        connection: server.env.nativeConnection,
        taskQueue,
        workflowBundle: stack().workflowBundle,
        // The bundle carries the tracing interceptors: their span sink (a no-op while tracing is off).
        sinks: workflowSpanSinks(),
        activities: createActivities({
          orm,
          rateLimitWindowSeconds: 60,
          vault,
          dunningScheduleDays,
          renewalLinks: { publicBaseUrl: stack().config.publicBaseUrl, keys: stack().config.encryptionKeys },
        }),
      }),
    start: async (sub: Subscribed, extra: Partial<SubscriptionWorkflowInput> = {}) => {
      const handle = await server.env.client.workflow.start(subscriptionWorkflow, {
        workflowId: subscriptionWorkflowId(sub.state.subscriptionId),
        taskQueue,
        args: [{ state: sub.state, ...extra }],
      });
      started.push(handle);
      return handle;
    },
    /** A workflow the test did not start itself (a renewal's successor): terminated after the test too. */
    track: (workflowId: string) => started.push(server.env.client.workflow.getHandle(workflowId)),
  };
}
