/**
 * stripe-mock (Stripe's own mock server, generated from Stripe's OpenAPI spec): it refuses any request the real API
 * would refuse for its shape, so provider_a's requests are checked against it (test/api/provider-a-stripe-mock.test.ts).
 * Built from the Go module proxy like the temporal CLI (temporal-binaries.ts) and cached per version outside the repo.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, log } from './paths';
import { freePort, waitForPort } from './processes';
import { isExecutable, run, which } from './temporal-binaries';
import { refuseInUnitLane } from './test-lanes';

export const STRIPE_MOCK_VERSION = '0.203.0';

/** Path to the stripe-mock binary: STRIPE_MOCK_PATH, else the cached build, else built now (needs `go`). */
export async function resolveStripeMock(): Promise<string> {
  refuseInUnitLane('Resolving stripe-mock');
  const fromEnv = process.env.STRIPE_MOCK_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`STRIPE_MOCK_PATH=${fromEnv} is not an executable file`);
    return path.resolve(fromEnv);
  }
  // The version is in the file name, so changing STRIPE_MOCK_VERSION builds the new one instead of reusing the old.
  const cached = path.join(CACHE_DIR, 'bin', `stripe-mock-v${STRIPE_MOCK_VERSION}`);
  if (isExecutable(cached)) return cached;
  if (!which('go')) throw new Error('go is needed to build stripe-mock (or set STRIPE_MOCK_PATH)');
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  // A separate GOBIN, renamed into place only on success, so an interrupted build is never picked up.
  const gobin = fs.mkdtempSync(path.join(CACHE_DIR, 'bin', '.building-'));
  try {
    const module = `github.com/stripe/stripe-mock@v${STRIPE_MOCK_VERSION}`;
    log(`building stripe-mock: go install ${module}`);
    await run('go', ['install', '-ldflags=-s -w', module], { env: { ...process.env, GOBIN: gobin } });
    fs.renameSync(path.join(gobin, 'stripe-mock'), cached);
    log(`stripe-mock ready at ${cached}`);
    return cached;
  } finally {
    fs.rmSync(gobin, { recursive: true, force: true });
  }
}

export interface RunningStripeMock {
  /** Base URL for API calls, e.g. http://127.0.0.1:12111 (paths start with /v1). */
  url: string;
  stop(): Promise<void>;
}

/** Starts stripe-mock on a free port (plain HTTP only) and waits until it listens. */
export async function startStripeMock(): Promise<RunningStripeMock> {
  const binary = await resolveStripeMock();
  const port = await freePort();
  const child: ChildProcess = spawn(binary, ['-http-port', String(port), '-https-port', String(await freePort())], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr = (stderr + String(chunk)).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    await waitForPort(port, 30_000);
  } catch (error) {
    child.kill('SIGTERM');
    await exited;
    throw new Error(`stripe-mock did not start: ${(error as Error).message}\n${stderr}`, { cause: error });
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
