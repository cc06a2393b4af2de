/**
 * A real Temporal server for local development (`temporal server start-dev`: SQLite persistence plus the Web UI)
 * and a disposable one for tests, both with the project's custom search attributes registered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment, type LocalTestWorkflowEnvironmentOptions } from '@temporalio/testing';
import { SEARCH_ATTRIBUTES, searchAttributeIndexType } from '../../workflows/definitions';
import { CACHE_DIR, log } from './paths';
import { isOrphan, parentOf, portInUse, processesMatching, stopProcess, waitForPortFree } from './processes';
import { resolveTemporalCli, which } from './temporal-binaries';
import { refuseInUnitLane } from './test-lanes';

type DevServerOptions = NonNullable<LocalTestWorkflowEnvironmentOptions['server']>;

export interface TemporalDevServerOptions {
  /** SQLite file holding namespaces, search attributes and workflow history across restarts. */
  dbFile: string;
  port?: number;
  uiPort?: number;
  namespace?: string;
}

export interface RunningTemporal {
  address: string;
  stop(): Promise<void>;
}

export async function startTemporalDevServer({
  dbFile,
  port = 7233,
  uiPort = 8233,
  namespace = 'default',
}: TemporalDevServerOptions): Promise<RunningTemporal & { uiUrl: string }> {
  const dbFilename = path.resolve(dbFile);
  fs.mkdirSync(path.dirname(dbFilename), { recursive: true });
  if (await stopOrphanedDevServer(dbFilename)) {
    // Its ports are released a moment after it exits; checking at once found 7233 still taken.
    for (const p of [port, uiPort]) await waitForPortFree(p, 15_000);
  }
  // The SDK only waits until something answers gRPC on the port, so a server already there would be used silently.
  for (const p of [port, uiPort]) {
    if (await portInUse(p)) throw new Error(`port ${p} is already in use; is another Temporal server running?`);
  }
  log(`starting temporal dev server on port ${port} (UI on ${uiPort}, data in ${dbFilename})`);
  // The UI has no authentication: it binds loopback explicitly, not by inheriting --ip.
  const ui = { ui: true, uiPort, extraArgs: ['--ui-ip', '127.0.0.1'] };
  const running = await start({ ip: '127.0.0.1', port, ...ui, namespace, dbFilename });
  return { ...running, uiUrl: `http://127.0.0.1:${uiPort}` };
}

/** For the test harness: a free port, nothing persisted, no UI. */
export async function startTemporalForTests(): Promise<RunningTemporal> {
  return start({ ip: '127.0.0.1', ui: false });
}

/** The SDK gives the server a fixed 5 s to answer; a busy machine sometimes needs longer, so a start is retried. */
const START_TRIES = 3;

async function start(server: DevServerOptions): Promise<RunningTemporal> {
  refuseInUnitLane('Starting a Temporal dev server');
  const options = {
    server: {
      ...server,
      executable: await executable(),
      // The CLI adds only missing attributes, so this is safe on every start against an existing dbFile.
      searchAttributes: SEARCH_ATTRIBUTES.map((name) => ({ name, type: searchAttributeIndexType(name) })),
      extraArgs: [...(server.extraArgs ?? []), ...devServerTuning(server.dbFilename)],
    },
  };
  let env: TestWorkflowEnvironment | undefined;
  for (let attempt = 1; !env; attempt += 1) {
    try {
      env = await TestWorkflowEnvironment.createLocal(options);
    } catch (error) {
      if (attempt >= START_TRIES || !/did not start within/.test(String(error))) throw error;
      log(`temporal dev server did not answer within the SDK's 5 s (try ${attempt} of ${START_TRIES}); starting again`);
    }
  }
  let stopping: Promise<void> | undefined;
  return {
    address: env.address,
    stop: () => (stopping ??= env.teardown()),
  };
}

/**
 * Measured in bench/temporal-ceiling.ts (docs/benchmarks.md). Eager activity execution (off by default in
 * the server) hands an activity scheduled by a workflow task straight back to the worker that completed it, skipping
 * the matching service: ~60 ms less per activity on this machine. WAL with synchronous=normal doubles the file-backed
 * SQLite's throughput (a dev server may lose its last transactions on power loss; docker-compose uses PostgreSQL).
 */
function devServerTuning(dbFilename: string | undefined): string[] {
  const args = ['--dynamic-config-value', 'system.enableActivityEagerExecution=true'];
  if (dbFilename) args.push('--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  return args;
}

async function executable(): Promise<DevServerOptions['executable']> {
  const cli = await resolveTemporalCli();
  if (cli) return { type: 'existing-path', path: inOwnSession(cli) };
  // No CLI and no Go: @temporalio/testing downloads one (needs access to temporal.download).
  return { type: 'cached-download', downloadDir: path.join(CACHE_DIR, 'download') };
}

/**
 * The SDK starts the CLI in our process group, so a terminal Ctrl-C reached Temporal directly and stopped it
 * while the worker still needed it. This wrapper gives it a session of its own; teardown still works because sh
 * and setsid both exec, so the PID the SDK kills (SIGKILL) is the server's.
 */
function inOwnSession(cli: string): string {
  const setsid = which('setsid');
  if (!setsid) return cli;
  const wrapper = path.join(CACHE_DIR, 'bin', 'temporal-in-own-session');
  const body = `#!/bin/sh\nexec ${setsid} '${cli}' "$@"\n`;
  if (fs.existsSync(wrapper) && fs.readFileSync(wrapper, 'utf8') === body) return wrapper;
  fs.mkdirSync(path.dirname(wrapper), { recursive: true });
  const staging = `${wrapper}.${process.pid}`;
  fs.writeFileSync(staging, body, { mode: 0o755 });
  fs.renameSync(staging, wrapper);
  return wrapper;
}

/**
 * A dev server outlives a SIGKILLed node process until it next writes to its (now broken) stdout pipe, and
 * meanwhile holds the port and the SQLite file. Stop such an orphan, waiting until it has exited; refuse if a live
 * process still owns it. True when there was one.
 */
async function stopOrphanedDevServer(dbFilename: string): Promise<boolean> {
  const usesDb = (args: string[]) => args.includes('start-dev') && args.includes(dbFilename);
  const orphans = processesMatching(usesDb);
  for (const pid of orphans) {
    if (!isOrphan(pid)) {
      throw new Error(`a temporal dev server for ${dbFilename} already runs (pid ${pid}, started by ${parentOf(pid)})`);
    }
    log(`stopping temporal dev server left running by a previous run (pid ${pid})`);
    await stopProcess(pid, 'SIGTERM', 10_000);
  }
  return orphans.length > 0;
}
