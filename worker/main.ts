/**
 * The worker process: one Worker per task queue (payments, webhooks, test clocks), activities built from injected
 * dependencies, graceful shutdown on SIGINT/SIGTERM (in-flight activities finish first). `npm start` calls
 * startWorker() in-process.
 */
import {
  bundleWorkflowCode,
  NativeConnection,
  Worker,
  type WorkerOptions as SdkWorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { createActivities } from '../activities';
import { TASK_QUEUES } from '../workflows/definitions';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../domain/platform/config';
import { createLogger, flushLogger } from '../domain/platform/logger';
import { openOrm, type Orm } from '../db/orm';
import { ensureSchedules } from './schedules';
import { startWebhookOutbox } from './outbox-listener';
import { webhookSettingsOf } from '../activities/webhooks/deliver';
import { vaultSettingsOf } from '../activities/vault';
import { retryingStartup } from './startup-retry';
import type { RunningMetricsServer } from '../domain/platform/metrics-server';
import {
  activityMetricsInterceptor,
  activityTracingInterceptor,
  installTemporalRuntime,
  startWorkerMetrics,
  WORKFLOW_INTERCEPTOR_MODULES,
  workflowSpanSinks,
} from './telemetry';
import { startTracing } from '../domain/platform/tracing';

/**
 * The slots of each task queue's Worker. The test-clock queue's are few and set apart (TEST_CLOCK_WORKER_*): an
 * advance that runs a thousand renewals holds at most that many workflow tasks and activities at once, so the process
 * keeps its time for live charges. The payments and webhooks Workers keep the SDK's defaults.
 */
type Slots = Pick<SdkWorkerOptions, 'maxConcurrentWorkflowTaskExecutions' | 'maxConcurrentActivityTaskExecutions'>;

export function workerSlotsOf(taskQueue: string, config: Config): Slots {
  if (taskQueue !== TASK_QUEUES.testClocks) return {};
  return {
    maxConcurrentWorkflowTaskExecutions: config.testClocks.worker.maxWorkflowTasks,
    maxConcurrentActivityTaskExecutions: config.testClocks.worker.maxActivities,
  };
}

export interface RunningWorker {
  /** The Workers' connection: an API in the same process starts charges eagerly on it (`npm start`). */
  connection: NativeConnection;
  /** The worker's Prometheus endpoint (null when WORKER_METRICS_PORT is off). */
  metricsUrl: string | null;
  /** Resolves when the worker has shut down. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export interface WorkerOptions {
  config: Config;
  orm: Orm;
  /** Pre-built bundle (tests bundle once); otherwise workflows/ is bundled at start. */
  workflowBundle?: WorkflowBundleWithSourceMap;
}

export async function startWorker({ config, orm, workflowBundle }: WorkerOptions): Promise<RunningWorker> {
  installTemporalRuntime();
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  try {
    return await runWorkers({ config, orm, workflowBundle }, connection);
  } catch (error) {
    // A start that failed partway (Temporal went away meanwhile) leaves nothing open: it may be tried again.
    await connection.close().catch(() => undefined);
    throw error;
  }
}

async function runWorkers(
  { config, orm, workflowBundle }: WorkerOptions,
  connection: NativeConnection,
): Promise<RunningWorker> {
  // Fans each event out to its webhook endpoints right after its commit (worker/outbox-listener.ts).
  const outbox = await startWebhookOutbox(config, orm, connection);
  let metrics: RunningMetricsServer | null = null;
  try {
    metrics = await startWorkerMetrics(config, orm);
    return await createWorkers({ config, orm, workflowBundle }, connection, outbox, metrics);
  } catch (error) {
    await Promise.all([outbox.stop(), metrics?.stop()]).catch(() => undefined);
    throw error;
  }
}

async function createWorkers(
  { config, orm, workflowBundle }: WorkerOptions,
  connection: NativeConnection,
  outbox: Awaited<ReturnType<typeof startWebhookOutbox>>,
  metrics: RunningMetricsServer | null,
): Promise<RunningWorker> {
  const bundle =
    workflowBundle ??
    (await bundleWorkflowCode({
      workflowsPath: require.resolve('../workflows'),
      workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    }));
  const activities = createActivities({
    orm,
    rateLimitWindowSeconds: config.rateLimit.windowSeconds,
    webhooks: webhookSettingsOf(config),
    temporalClient: outbox.client,
    vault: vaultSettingsOf(config),
    mail: { smtpUrl: config.mail.smtpUrl, from: config.mail.from, keys: config.encryptionKeys },
    dunningScheduleDays: config.subscriptions.dunningScheduleDays,
    renewalLinks: { publicBaseUrl: config.publicBaseUrl, keys: config.encryptionKeys },
  });
  // One Worker per task queue, each with its own slots, so webhook deliveries and test-clock work never wait for
  // charges or the other way round (the test-clock queue's slots are few: workerSlotsOf). Each registers
  // everything: a workflow started on any queue before a deploy still finds a worker.
  const workers = await Promise.all(
    Object.values(TASK_QUEUES).map((taskQueue) =>
      Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue,
        workflowBundle: bundle,
        activities,
        maxCachedWorkflows: config.workerMaxCachedWorkflows,
        interceptors: { activity: [activityTracingInterceptor, activityMetricsInterceptor] },
        sinks: workflowSpanSinks(),
        ...workerSlotsOf(taskQueue, config),
      }),
    ),
  );
  const stopAll = () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  // If one Worker fails the others stop too (the process is then visibly down rather than half up); the shared
  // connection closes only once all have finished.
  const done = Promise.allSettled(
    workers.map((worker) =>
      worker.run().catch((error) => {
        stopAll();
        throw error;
      }),
    ),
  ).then(async (results) => {
    // The listener starts workflows on the Workers' connection: it stops first.
    await outbox.stop();
    await Promise.all([connection.close(), metrics?.stop()]);
    const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) throw failure.reason;
  });
  return {
    connection,
    metricsUrl: metrics?.url ?? null,
    done,
    async stop() {
      stopAll();
      await done;
    },
  };
}

/** Registers the schedules the worker's workflows are started by (idempotent). */
export async function registerSchedules(config: Config): Promise<void> {
  const connection = await Connection.connect({ address: config.temporal.address });
  try {
    await ensureSchedules(new Client({ connection, namespace: config.temporal.namespace }));
  } finally {
    await connection.close();
  }
}

/**
 * A worker process exits only on a fatal error, and says why first: one fatal log line, and the error on stderr too
 * (LOG_LEVEL may be silent). An uncaught exception or unhandled rejection anywhere in the process is fatal as well,
 * but logged the same way rather than dying with whatever Node prints. Returns the function to call on a fatal error.
 */
export function exitOnFatal(logger: Logger): (what: string, error: unknown) => void {
  let exiting = false;
  const fatal = (what: string, error: unknown) => {
    if (exiting) return;
    exiting = true;
    logger.fatal({ err: error }, what);
    console.error(`${what}:`, error);
    void flushLogger(logger).finally(() => process.exit(1));
  };
  process.on('uncaughtException', (error) => fatal('Worker crashed: uncaught exception', error));
  process.on('unhandledRejection', (reason) => fatal('Worker crashed: unhandled rejection', reason));
  return fatal;
}

/**
 * How long a starting worker waits for PostgreSQL and Temporal (WORKER_STARTUP_RETRY_SECONDS, default 120) before
 * it exits as failed. Read here rather than in the shared config: only this entry point uses it.
 */
function startupRetrySeconds(): number {
  const value = Number(process.env.WORKER_STARTUP_RETRY_SECONDS ?? 120);
  if (!Number.isFinite(value) || value < 0) throw new Error('WORKER_STARTUP_RETRY_SECONDS must be a number >= 0');
  return value;
}

/**
 * The worker process's life: open the ORM, register the schedules and start the Workers — each step waiting for its
 * dependency (worker/startup-retry.ts), so a worker started while PostgreSQL or Temporal restarts comes up once they
 * are back instead of exiting — then run until SIGINT/SIGTERM. Exits only on a fatal error, logged first.
 */
export function runWorkerProcess(options: { workflowBundle?: WorkflowBundleWithSourceMap } = {}): void {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const fatal = exitOnFatal(logger);
  startTracing(config.telemetry.traces, 'worker');
  (async () => {
    const retry = { withinMs: startupRetrySeconds() * 1000, logger };
    const orm = await retryingStartup('PostgreSQL', () => openOrm(config.databaseUrl), retry);
    await retryingStartup('Temporal (schedules)', () => registerSchedules(config), retry);
    const worker = await retryingStartup(
      'Temporal (task queues)',
      () => startWorker({ config, orm, workflowBundle: options.workflowBundle }),
      retry,
    );
    logger.info('Worker started');
    const stop = () => void worker.stop();
    process.once('SIGINT', stop).once('SIGTERM', stop);
    await worker.done;
    await orm.close();
  })().catch((error) => fatal('Worker failed', error));
}

if (require.main === module) runWorkerProcess();
