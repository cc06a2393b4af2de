/**
 * Temporal's time-skipping test server (the Java one, resolved by scripts/lib/temporal-binaries.ts), with the
 * project's search attributes registered — the dev server gets them at start; this server is told here, as an
 * operator would tell a real cluster.
 */
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { vaultSettingsOf } from '../../activities/vault';
import { stack } from './stack';
import { resolveTimeSkippingTestServer } from '../../scripts/lib/temporal-binaries';
import { SEARCH_ATTRIBUTES, searchAttributeIndexType } from '../../workflows/definitions';
import { workflowSpanSinks } from '../../worker/telemetry';

async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  const path = await resolveTimeSkippingTestServer();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path } },
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      SEARCH_ATTRIBUTES.map((name) => [
        name,
        temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${searchAttributeIndexType(name)}`],
      ]),
    ),
  });
  return env;
}

/**
 * One time-skipping server for the enclosing describe block: started in its before hook (the first start may
 * download the server), torn down in its after hook. Read `.env` inside hooks and tests.
 */
export function useTimeSkipping(): { readonly env: TestWorkflowEnvironment } {
  let env: TestWorkflowEnvironment | undefined;
  before(async function () {
    this.timeout(5 * 60 * 1000);
    env = await startTimeSkipping();
  });
  after(async () => {
    await env?.teardown();
  });
  return {
    get env() {
      if (!env) throw new Error('The time-skipping server is not running (useTimeSkipping starts it in a before hook)');
      return env;
    },
  };
}

/**
 * Skips the server's clock to `margin` past `at` (a renewal, a retry: a date the workflow chose). Tests wait for
 * the workflow's own dates, not a fixed number of days: a month is 28 to 31 days long depending on when CI runs.
 */
export async function sleepPast(env: TestWorkflowEnvironment, at: string | Date, margin = 3_600_000): Promise<void> {
  const now = Number(await env.currentTimeMs());
  await env.sleep(Math.max(0, new Date(at).getTime() - now) + margin);
}

/**
 * A worker on the time-skipping server running the real workflows and activities against the test stack's
 * database, with the stack's vault settings (so activities can call the sandbox providers as the real worker does);
 * `options` adds worker settings (a worker without its sticky cache, say).
 */
export function stackWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  options: Partial<WorkerOptions> = {},
): Promise<Worker> {
  return Worker.create({
    ...options,
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: stack().workflowBundle,
    // The bundle carries the tracing interceptors: their span sink (a no-op while tracing is off).
    sinks: workflowSpanSinks(),
    activities: createActivities({
      orm: stack().orm,
      rateLimitWindowSeconds: 60,
      vault: vaultSettingsOf(stack().config),
    }),
  });
}
