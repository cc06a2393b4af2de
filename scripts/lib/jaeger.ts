/**
 * Jaeger, the trace UI `npm start` runs beside the Temporal UI and Mailpit: OTLP/HTTP on 127.0.0.1:4318 (what
 * OTEL_EXPORTER_OTLP_ENDPOINT points the API and the worker at), its UI on http://127.0.0.1:16686, traces in memory,
 * configured by deploy/jaeger/config.yaml. Built from its Go module into the tool cache, like caddy. `go install
 * …/cmd/jaeger@v1.76.0` refuses the module (its go.mod has a replace directive), so the module is downloaded and
 * built in place, as its release does. The module carries no built web UI (that is a separate repository, bundled
 * by Jaeger's release process): the UI port then shows Jaeger's placeholder page, while its HTTP API
 * (/api/services, /api/traces) serves the traces; JAEGER_PATH names a Jaeger release binary (with its UI) instead.
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, log } from './paths';
import { isOrphan, portInUse, processesMatching, stopProcess, waitForPort } from './processes';
import { isExecutable, run, which } from './temporal-binaries';
import { refuseInUnitLane } from './test-lanes';

const JAEGER_VERSION = 'v1.76.0';
const JAEGER_MODULE = `github.com/jaegertracing/jaeger@${JAEGER_VERSION}`;
const CONFIG = path.join(__dirname, '..', '..', 'deploy', 'jaeger', 'config.yaml');

export interface RunningJaeger {
  uiUrl: string;
  /** What OTEL_EXPORTER_OTLP_ENDPOINT should be. */
  otlpEndpoint: string;
  stop(): Promise<void>;
}

const cachedBuild = () => path.join(CACHE_DIR, 'bin', `jaeger-${JAEGER_VERSION}`);

/** JAEGER_PATH, else the cached build; undefined when it has to be built. */
export function existingJaeger(): string | undefined {
  refuseInUnitLane('Resolving Jaeger');
  if (process.env.JAEGER_PATH) return process.env.JAEGER_PATH;
  return isExecutable(cachedBuild()) ? cachedBuild() : undefined;
}

/** Builds Jaeger into the tool cache (20 minutes or more on two cores); undefined without Go or when it fails. */
export async function buildJaeger(): Promise<string | undefined> {
  if (!which('go')) return undefined;
  const cached = cachedBuild();
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  const building = `${cached}.building-${process.pid}`;
  try {
    log(`building Jaeger ${JAEGER_VERSION} from source (once; 20 minutes or more on two cores)`);
    const { stdout } = await promisify(execFile)('go', ['mod', 'download', '-json', JAEGER_MODULE]);
    const moduleDir = (JSON.parse(stdout) as { Dir: string }).Dir;
    await run('go', ['build', '-ldflags=-s -w', '-o', building, './cmd/jaeger'], { cwd: moduleDir, quiet: true });
    fs.renameSync(building, cached);
    return cached;
  } catch (error) {
    log(`could not build Jaeger (${String(error)}); traces are off`);
    return undefined;
  } finally {
    fs.rmSync(building, { force: true });
  }
}

/** The binary there, else built now; undefined without Go (traces are then off). */
export async function resolveJaeger(): Promise<string | undefined> {
  return existingJaeger() ?? (await buildJaeger());
}

/**
 * Ports: the UI and OTLP/HTTP ones, and their gRPC neighbours (one below each unless given: a test names free ones).
 * `binary`: one already resolved (else resolved, and built if need be, here).
 */
export async function startJaeger(
  options: { uiPort?: number; otlpPort?: number; queryGrpcPort?: number; otlpGrpcPort?: number; binary?: string } = {},
): Promise<RunningJaeger | null> {
  const { uiPort = 16686, otlpPort = 4318 } = options;
  const { queryGrpcPort = uiPort - 1, otlpGrpcPort = otlpPort - 1 } = options;
  const binary = options.binary ?? (await resolveJaeger());
  if (!binary) return null;
  // Its own process group outlives a starter killed hard (SIGKILL): such an orphan keeps the ports, and holds
  // nothing worth keeping (traces live in memory).
  for (const pid of processesMatching((args) => args[0] === binary && args.includes(CONFIG))) {
    if (!isOrphan(pid)) continue; // another live run's: the port check below names it
    log(`stopping Jaeger left running by a previous run (pid ${pid})`);
    await stopProcess(pid, 'SIGTERM', 10_000);
  }
  for (const port of [uiPort, otlpPort]) {
    if (await portInUse(port)) throw new Error(`port ${port} is already in use; is another Jaeger running?`);
  }
  const env = {
    ...process.env,
    JAEGER_UI_PORT: String(uiPort),
    JAEGER_OTLP_HTTP_PORT: String(otlpPort),
    JAEGER_OTLP_GRPC_PORT: String(otlpGrpcPort),
    JAEGER_QUERY_GRPC_PORT: String(queryGrpcPort),
  };
  // A process group of its own: a terminal's Ctrl-C would stop it at once, before the API and the worker have
  // flushed their last spans to it; it stops when `stop` says so, after them.
  const child = spawn(binary, ['--config', CONFIG], { stdio: ['ignore', 'ignore', 'pipe'], env, detached: true });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await Promise.race([
      Promise.all([waitForPort(uiPort, 30_000), waitForPort(otlpPort, 30_000)]),
      exited.then(() => Promise.reject(new Error(`Jaeger exited: ${stderr}`))),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    uiUrl: `http://127.0.0.1:${uiPort}`,
    otlpEndpoint: `http://127.0.0.1:${otlpPort}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
