/**
 * promtool, Prometheus's rule checker: test/deploy/alert-rules.test.ts runs `promtool test rules` on
 * deploy/prometheus/alerts.test.yml. Built from the Go module proxy like caddy and cached per version.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, log } from './paths';
import { isExecutable, run, which } from './temporal-binaries';
import { refuseInUnitLane } from './test-lanes';

/** Prometheus v3.x's Go module version (its tags map v3.N to v0.3N). */
export const PROMTOOL_VERSION = 'v0.316.0';

/** Path to promtool: PROMTOOL_PATH, else the cached build, else built now (needs `go`). */
export async function resolvePromtool(): Promise<string> {
  refuseInUnitLane('Resolving promtool');
  const fromEnv = process.env.PROMTOOL_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`PROMTOOL_PATH=${fromEnv} is not an executable file`);
    return path.resolve(fromEnv);
  }
  const cached = path.join(CACHE_DIR, 'bin', `promtool-${PROMTOOL_VERSION}`);
  if (isExecutable(cached)) return cached;
  if (!which('go')) throw new Error('go is needed to build promtool (or set PROMTOOL_PATH)');
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  // A separate GOBIN, renamed into place only on success, so an interrupted build is never picked up.
  const gobin = fs.mkdtempSync(path.join(CACHE_DIR, 'bin', '.building-'));
  try {
    const module = `github.com/prometheus/prometheus/cmd/promtool@${PROMTOOL_VERSION}`;
    log(`building promtool: go install ${module}`);
    await run('go', ['install', '-ldflags=-s -w', module], { env: { ...process.env, GOBIN: gobin } });
    fs.renameSync(path.join(gobin, 'promtool'), cached);
    return cached;
  } finally {
    fs.rmSync(gobin, { recursive: true, force: true });
  }
}
