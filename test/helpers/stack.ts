/**
 * The real stack every integration test talks to: an embedded PostgreSQL, a Temporal dev server, the
 * worker and the API on a random port — started once per mocha run by hooks.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { loadConfig, type Config } from '../../domain/platform/config';
import { startApi, type RunningApi } from '../../api/server';
import { migrate, openOrm, type Orm } from '../../db/orm';
import { grantRuntimeRole, runtimeRoleUrl } from '../../db/runtime-role';
import { registerSchedules, startWorker, type RunningWorker } from '../../worker/main';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../worker/telemetry';
import { startEmbeddedPostgres, type RunningPostgres } from '../../scripts/lib/postgres';
import { startTemporalForTests, type RunningTemporal } from '../../scripts/lib/temporal-dev-server';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import { startMailCatcher, type RunningMail } from '../../scripts/lib/mailpit';
import { buildDashboard } from '../../scripts/lib/dashboard-build';
import { freePort, reservePort } from './ports';
import { forgetChildren, guardChildren, reapStaleChildren, recordChildren } from './child-processes';
import { log } from '../../scripts/lib/paths';
import { randomBytes } from 'node:crypto';

export interface TestStack {
  config: Config;
  /** Temporary directory holding the database files; removed when the stack stops. */
  dataDir: string;
  /** Connection details for tests that build a second app or open their own ORM (DATABASE_URL: the runtime role). */
  env: NodeJS.ProcessEnv;
  postgres: RunningPostgres;
  databasePort: number;
  temporal: RunningTemporal;
  /** As the owner role that ran the migrations: for fixtures and checks that need more than the app may do. */
  orm: Orm;
  /** As the runtime role (DML only), like the API: the worker's. */
  appOrm: Orm;
  workflowBundle: WorkflowBundleWithSourceMap;
  worker: RunningWorker;
  api: RunningApi;
  url: string;
  /** The sandbox PSP on a free port; test-mode connectors call it (config.sandboxUrl). */
  sandbox: RunningSandbox;
  sandboxUrl: string;
  /** Mailpit on free ports (the same function `npm start` uses), or .eml files under dataDir without the binary. */
  mail: RunningMail;
}

let current: TestStack | undefined;

/** Not docker-compose's `switchyard_app`: test/api/docker-compose-boot.test.ts drops and recreates that one. */
const RUNTIME_ROLE = 'switchyard_test_app';

export function stack(): TestStack {
  if (!current) throw new Error('The test stack is not running (test/helpers/hooks.ts starts it)');
  return current;
}

export interface StackOptions {
  /** Another Temporal server than the dev server (the bench's PostgreSQL-backed one); the stack stops it too. */
  startTemporal?: () => Promise<RunningTemporal>;
}

export async function startStack({ startTemporal = startTemporalForTests }: StackOptions = {}): Promise<TestStack> {
  // A run killed outright left its servers running (ports, memory, CPU): stop them before starting ours.
  await reapStaleChildren(log);
  guardChildren();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-test-'));
  // As root, PostgreSQL runs as the postgres user, which must be able to enter the directory.
  fs.chmodSync(dataDir, 0o755);
  const databasePort = await freePort();
  // The API's address is fixed up front so PUBLIC_BASE_URL (connectors' webhook_url, registered at the sandbox) reaches it.
  const { port: apiPort, reservation: apiReservation } = await reservePort();
  const [smtpPort, mailUiPort] = [await freePort(), await freePort()];
  const [postgres, temporal, workflowBundle, sandbox, mail] = await Promise.all([
    startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: databasePort, databases: ['switchyard_test'] }),
    startTemporal(),
    bundleWorkflowCode({
      workflowsPath: require.resolve('../../workflows'),
      workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
      logger: quietBundlerLogger,
    }),
    startSandbox({ port: 0 }),
    startMailCatcher({ dataDir: path.join(dataDir, 'mail'), smtpPort, uiPort: mailUiPort }),
  ]);
  // Migrations run as the owner; the API and the worker as a role without DDL rights, as in production.
  const orm = await openOrm(postgres.url('switchyard_test'));
  await migrate(orm);
  const runtimePassword = randomBytes(12).toString('hex');
  await grantRuntimeRole(orm.em.fork(), RUNTIME_ROLE, runtimePassword);
  const env = {
    APP_ENV: 'test',
    DATABASE_URL: runtimeRoleUrl(postgres.url('switchyard_test'), RUNTIME_ROLE, runtimePassword),
    TEMPORAL_ADDRESS: temporal.address,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    SANDBOX_URL: sandbox.url,
    PUBLIC_BASE_URL: `http://localhost:${apiPort}`,
    SMTP_URL: mail.smtpUrl,
    // Every test request comes from 127.0.0.1, so per-IP would mean per-key here; the browser limits are tested
    // on an API of their own (test/api/browser-rate-limits.test.ts).
    PUBLIC_RATE_LIMIT_PER_IP: '1000000',
    PUBLIC_RATE_LIMIT_PER_SESSION: '1000000',
    // Same for sign-in: the per-IP throttles are tested on an API of their own (test/api/dashboard-throttle.test.ts).
    LOGIN_ATTEMPTS_PER_IP: '1000000',
    FORGOT_PASSWORD_PER_IP: '1000000',
    RESET_PASSWORD_PER_IP: '1000000',
    UNKNOWN_API_KEYS_PER_IP: '1000000',
    // The reliability suite (scripts/test-reliability.ts) sends thousands of requests per key; `npm test` keeps 100.
    ...(process.env.RATE_LIMIT_REQUESTS ? { RATE_LIMIT_REQUESTS: process.env.RATE_LIMIT_REQUESTS } : {}),
    // The bench measures worker memory with the sticky cache capped (docs/benchmarks.md, sleeping subscriptions).
    ...(process.env.WORKER_MAX_CACHED_WORKFLOWS
      ? { WORKER_MAX_CACHED_WORKFLOWS: process.env.WORKER_MAX_CACHED_WORKFLOWS }
      : {}),
    // The bench measures a test clock's advance at other slots and paces (TEST_CLOCK_WORKER_*, TEST_CLOCK_ADVANCE_*).
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('TEST_CLOCK_'))),
  };
  const config = loadConfig(env);
  const appOrm = await openOrm(config.databaseUrl);
  await registerSchedules(config);
  const worker = await startWorker({ config, orm: appOrm, workflowBundle });
  // The API serves the merchant Dashboard web app from its build (well under a second), as npm start does.
  await buildDashboard();
  const api = await startApi(config, apiReservation);
  recordChildren();
  current = {
    config,
    dataDir,
    env,
    postgres,
    databasePort,
    temporal,
    orm,
    appOrm,
    workflowBundle,
    worker,
    api,
    url: api.url,
    sandbox,
    sandboxUrl: sandbox.url,
    mail,
  };
  return current;
}

/**
 * Stops the stack's worker (and with it the outbox listener), runs `whileDown`, then starts a fresh one, even when
 * `whileDown` fails. Return promises wrapped in an object: one awaited here would wait for a worker that is down.
 */
export async function withWorkerDown<T>(whileDown: () => Promise<T>): Promise<T> {
  const current = stack();
  await current.worker.stop();
  try {
    return await whileDown();
  } finally {
    current.worker = await startWorker({
      config: current.config,
      orm: current.appOrm,
      workflowBundle: current.workflowBundle,
    });
  }
}

export async function stopStack(): Promise<void> {
  if (!current) return;
  const { api, worker, orm, appOrm, temporal, postgres, dataDir, sandbox, mail } = current;
  current = undefined;
  await api.stop();
  await sandbox.stop();
  await worker.stop();
  await mail.stop();
  await appOrm.close();
  await orm.close();
  await temporal.stop();
  await postgres.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  forgetChildren();
}

const quietBundlerLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: console.warn,
  error: console.error,
};
