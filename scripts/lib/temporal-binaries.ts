/**
 * Finds or builds the Temporal server binaries the dev stack and tests need. @temporalio/testing would download
 * them from temporal.download, which this project's machines cannot reach, so we build them from package
 * registries instead: the CLI (dev server) from the Go module proxy, the time-skipping test server from Maven Central.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, log } from './paths';
import { freePort, waitForPort } from './processes';
import { refuseInUnitLane } from './test-lanes';
import { withProgress } from './optional-tools';

const TEMPORAL_CLI_VERSION = '1.5.1';
const TEST_SERVER_VERSION = '1.38.0';
const TEST_SERVER_MAIN = 'io.temporal.testserver.TestServer';
const TEST_SERVER_DEPENDENCIES = [
  `io.temporal:temporal-test-server:${TEST_SERVER_VERSION}`,
  // Binds the test server's SLF4J 1.7 logging to nothing; without it every start prints a warning to stderr.
  'org.slf4j:slf4j-nop:1.7.36',
];

/** Path to a `temporal` CLI, or undefined to let @temporalio/testing download one itself. */
export async function resolveTemporalCli(): Promise<string | undefined> {
  refuseInUnitLane('Resolving the Temporal CLI');
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) return existingExecutable(fromEnv, 'TEMPORAL_CLI_PATH');
  const cached = path.join(CACHE_DIR, 'bin', 'temporal');
  const found = which('temporal') ?? (isExecutable(cached) ? cached : undefined);
  if (found || !which('go')) return found;

  // A separate GOBIN, renamed into place only on success, so an interrupted build is never picked up.
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  const gobin = fs.mkdtempSync(path.join(CACHE_DIR, 'bin', '.building-'));
  try {
    const module = `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`;
    log(`building the temporal CLI: go install ${module} (once; about 20 minutes on two cores)`);
    // Link-time flags only, so a warm Go build cache is still reused: stamp the version release builds carry (else
    // `temporal --version` says 0.0.0-DEV) and drop debug info (~40 MB of the ~250 MB binary).
    const ldflags = `-ldflags=-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`;
    const install = run('go', ['install', ldflags, module], { env: { ...process.env, GOBIN: gobin } });
    await withProgress('building the temporal CLI', install);
    fs.renameSync(path.join(gobin, 'temporal'), cached);
    log(`temporal CLI ready at ${cached}`);
    return cached;
  } finally {
    fs.rmSync(gobin, { recursive: true, force: true });
  }
}

/**
 * Path to a script that starts Temporal's time-skipping test server (a Java program) on the port given as its
 * argument, which is the contract @temporalio/testing expects of an `existing-path` executable.
 */
export async function resolveTimeSkippingTestServer(): Promise<string> {
  refuseInUnitLane("Resolving Temporal's time-skipping test server");
  const fromEnv = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (fromEnv) return existingExecutable(fromEnv, 'TEMPORAL_TEST_SERVER_PATH');

  const dir = path.join(CACHE_DIR, 'temporal-test-server');
  const script = path.join(dir, 'temporal-test-server');
  const libDir = path.join(dir, TEST_SERVER_VERSION);
  // The script names its dependencies, so changing them re-resolves instead of reusing stale jars.
  const marker = `# ${TEST_SERVER_DEPENDENCIES.join(' ')}`;
  if (fs.existsSync(script) && fs.readFileSync(script, 'utf8').includes(marker)) return script;

  const coordinates = TEST_SERVER_DEPENDENCIES[0];
  for (const tool of ['mvn', 'java']) {
    if (!which(tool)) throw new Error(`${tool} is needed to fetch ${coordinates} (or set TEMPORAL_TEST_SERVER_PATH)`);
  }
  fs.mkdirSync(dir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(dir, '.resolving-'));
  try {
    log(`fetching ${coordinates} and its dependencies from Maven Central`);
    fs.writeFileSync(path.join(staging, 'pom.xml'), minimalPom(TEST_SERVER_DEPENDENCIES));
    const goal = ['dependency:copy-dependencies', '-DincludeScope=runtime', '-DoutputDirectory=lib'];
    // Debian's mvn prints stray ANSI resets even with -q, so its output is shown only when it fails.
    await run('mvn', ['-q', '-B', ...goal], { cwd: staging, quiet: true });
    fs.rmSync(libDir, { recursive: true, force: true });
    fs.renameSync(path.join(staging, 'lib'), libDir);
    const javaArgs = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', `${libDir}/*`];
    // The SDK gives the server 5 s to answer. A cold JVM on a busy 2-core CI machine gets close to that; a class
    // data sharing archive recorded by one training start cuts startup about threefold (to ~0.3 s here).
    const archive = path.join(libDir, 'classes.jsa');
    if (await recordClassArchive(javaArgs, archive)) javaArgs.unshift(`-XX:SharedArchiveFile=${archive}`);
    // `exec` so that killing the script (as @temporalio/testing does on teardown) kills the JVM itself.
    const command = ['exec java', ...javaArgs.map((arg) => `'${arg}'`), TEST_SERVER_MAIN, '"$@"'].join(' ');
    const body = `#!/bin/sh\n${marker}\n${command}\n`;
    fs.writeFileSync(path.join(staging, 'script'), body, { mode: 0o755 });
    fs.renameSync(path.join(staging, 'script'), script);
    log(`time-skipping test server ready at ${script}`);
    return script;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** Best effort: without an archive the server still works, only starts slower. */
async function recordClassArchive(javaArgs: string[], archive: string): Promise<boolean> {
  const port = await freePort();
  const jvm = spawn('java', [`-XX:ArchiveClassesAtExit=${archive}`, ...javaArgs, TEST_SERVER_MAIN, String(port)], {
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => jvm.once('close', resolve));
  try {
    await waitForPort(port, 30_000);
  } catch {
    return false;
  } finally {
    jvm.kill('SIGTERM'); // the archive is written as the JVM exits
    await exited;
  }
  return fs.existsSync(archive);
}

function minimalPom(dependencies: string[]): string {
  const deps = dependencies.map((coordinates) => {
    const [groupId, artifactId, version] = coordinates.split(':');
    const fields = `<groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version>`;
    return `    <dependency>${fields}</dependency>`;
  });
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>switchyard.local</groupId>
  <artifactId>temporal-test-server-deps</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
${deps.join('\n')}
  </dependencies>
</project>
`;
}

function existingExecutable(file: string, envName: string): string {
  if (!isExecutable(file)) throw new Error(`${envName}=${file} is not an executable file`);
  return path.resolve(file);
}

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function which(cmd: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, cmd))) return path.join(dir, cmd);
  }
  return undefined;
}

interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Hold the output back unless the command fails; otherwise it streams to stderr as progress. */
  quiet?: boolean;
}

export function run(cmd: string, args: string[], { quiet, ...opts }: RunOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', quiet ? 'pipe' : 2, quiet ? 'pipe' : 2] });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      reject(new Error(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`})\n${output}`));
    });
  });
}
