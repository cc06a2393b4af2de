/**
 * Caddy, the TLS-terminating proxy docker-compose.yml ships: its binary is needed only to validate deploy/Caddyfile
 * (test/deploy/caddyfile.test.ts). Built from the Go module proxy like stripe-mock and cached per version; the
 * version matches the minor of the `caddy` image in docker-compose.yml.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, log } from './paths';
import { isExecutable, run, which } from './temporal-binaries';
import { refuseInUnitLane } from './test-lanes';

export const CADDY_VERSION = '2.11.9';

/** Path to the caddy binary: CADDY_PATH, else the cached build, else built now (needs `go`). */
export async function resolveCaddy(): Promise<string> {
  refuseInUnitLane('Resolving caddy');
  const fromEnv = process.env.CADDY_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`CADDY_PATH=${fromEnv} is not an executable file`);
    return path.resolve(fromEnv);
  }
  const cached = path.join(CACHE_DIR, 'bin', `caddy-v${CADDY_VERSION}`);
  if (isExecutable(cached)) return cached;
  if (!which('go')) throw new Error('go is needed to build caddy (or set CADDY_PATH)');
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  // A separate GOBIN, renamed into place only on success, so an interrupted build is never picked up.
  const gobin = fs.mkdtempSync(path.join(CACHE_DIR, 'bin', '.building-'));
  try {
    const module = `github.com/caddyserver/caddy/v2/cmd/caddy@v${CADDY_VERSION}`;
    log(`building caddy: go install ${module}`);
    await run('go', ['install', '-ldflags=-s -w', module], { env: { ...process.env, GOBIN: gobin } });
    fs.renameSync(path.join(gobin, 'caddy'), cached);
    log(`caddy ready at ${cached}`);
    return cached;
  } finally {
    fs.rmSync(gobin, { recursive: true, force: true });
  }
}
