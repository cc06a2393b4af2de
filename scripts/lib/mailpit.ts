/**
 * Mailpit, the local mail catcher: `npm start` and the test stack send e-mail to its SMTP port, and a developer
 * reads it in the browser (or a test through its HTTP API). The binary is built once into the tool cache, like the
 * Temporal CLI: its web inbox is a Vue app that Mailpit's release process bundles with esbuild before `go build`
 * embeds it, and the Go module carries only the sources (server/ui-src), so a plain `go install` serves a blank
 * page. We do what its release does: copy the module's sources, `npm ci` + `npm run build` (its own lockfile), then
 * `go build`. Without npm the inbox is API-only (still enough for the tests); without Go, mail goes to .eml files.
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CACHE_DIR, log } from './paths';
import { portInUse, waitForPort } from './processes';
import { run, which } from './temporal-binaries';
import { refuseInUnitLane } from './test-lanes';

const MAILPIT_VERSION = 'v1.27.11';
const MAILPIT_MODULE = `github.com/axllent/mailpit@${MAILPIT_VERSION}`;

export interface RunningMail {
  /** What SMTP_URL should be. */
  smtpUrl: string;
  /** Mailpit's web UI and API, or the directory .eml files are written to. */
  uiUrl: string;
  /** Mailpit's HTTP API base (undefined with the .eml fallback). */
  apiUrl?: string;
  stop(): Promise<void>;
}

// Versioned names: a binary cached by the earlier `go install` build (no inbox) is never picked up again.
const cachedWithInbox = () => path.join(CACHE_DIR, 'bin', `mailpit-${MAILPIT_VERSION}`);
const cachedApiOnly = () => path.join(CACHE_DIR, 'bin', `mailpit-${MAILPIT_VERSION}-api-only`);

/** MAILPIT_PATH, else the cached build; without Go, one on PATH; undefined when it has to (and can) be built. */
export function existingMailpit(): string | undefined {
  refuseInUnitLane('Resolving Mailpit');
  if (process.env.MAILPIT_PATH) return process.env.MAILPIT_PATH;
  if (fs.existsSync(cachedWithInbox())) return cachedWithInbox();
  // An API-only build (npm was missing or failed) is used as it is; delete it to try the inbox build again.
  if (fs.existsSync(cachedApiOnly())) return cachedApiOnly();
  return which('go') ? undefined : which('mailpit');
}

/**
 * Builds Mailpit into the tool cache, with its web inbox when npm is there (about 5 minutes on two cores);
 * undefined without Go or when the build fails.
 */
export async function buildMailpit(): Promise<string | undefined> {
  if (!which('go')) return undefined;
  fs.mkdirSync(path.join(CACHE_DIR, 'bin'), { recursive: true });
  const work = fs.mkdtempSync(path.join(CACHE_DIR, 'bin', '.building-mailpit-'));
  try {
    log(`building Mailpit ${MAILPIT_VERSION} with its web inbox (once; about 5 minutes on two cores)`);
    const source = path.join(work, 'src');
    const { stdout } = await promisify(execFile)('go', ['mod', 'download', '-json', MAILPIT_MODULE]);
    const moduleDir = (JSON.parse(stdout) as { Dir: string }).Dir;
    // The module cache is read-only; npm and esbuild write node_modules and server/ui/dist into the copy.
    await run('cp', ['-R', moduleDir, source], { quiet: true });
    await run('chmod', ['-R', 'u+w', source], { quiet: true });
    const inbox = await buildInbox(source);
    const binary = path.join(work, 'mailpit');
    const ldflags = `-s -w -X github.com/axllent/mailpit/config.Version=${MAILPIT_VERSION}`;
    await run('go', ['build', `-ldflags=${ldflags}`, '-o', binary, '.'], { cwd: source, quiet: true });
    const target = inbox ? cachedWithInbox() : cachedApiOnly();
    fs.renameSync(binary, target);
    return target;
  } catch (error) {
    log(`could not build Mailpit (${String(error)}); e-mail goes to .eml files`);
    return undefined;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The binary there, else built now; undefined when there is none (mail then goes to .eml files). */
export async function resolveMailpit(): Promise<string | undefined> {
  return existingMailpit() ?? (await buildMailpit());
}

/** Bundles the web inbox into server/ui/dist (what `go build` embeds); false when npm is missing or fails. */
async function buildInbox(source: string): Promise<boolean> {
  if (!which('npm')) {
    log('npm not found: Mailpit is built without its web inbox (its HTTP API still works)');
    return false;
  }
  try {
    await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: source,
      quiet: true,
    });
    await run('npm', ['run', 'build'], { cwd: source, quiet: true });
    return fs.existsSync(path.join(source, 'server', 'ui', 'dist', 'app.js'));
  } catch (error) {
    log(`Mailpit's web inbox could not be built (${String(error).slice(0, 500)}); building it API-only`);
    return false;
  }
}

/** `binary`: one already resolved (else resolved, and built if need be, here). */
export async function startMailCatcher(options: {
  dataDir: string;
  smtpPort?: number;
  uiPort?: number;
  binary?: string;
}): Promise<RunningMail> {
  const { dataDir, smtpPort = 1025, uiPort = 8025 } = options;
  const binary = options.binary ?? (await resolveMailpit());
  if (!binary) return emlFallback(dataDir);
  for (const port of [smtpPort, uiPort]) {
    if (await portInUse(port)) throw new Error(`port ${port} is already in use; is another Mailpit running?`);
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const child = spawn(
    binary,
    [
      '--smtp',
      `127.0.0.1:${smtpPort}`,
      '--listen',
      `127.0.0.1:${uiPort}`,
      '--database',
      path.join(dataDir, 'mailpit.db'),
      '--smtp-auth-accept-any',
      '--smtp-auth-allow-insecure',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: false },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await Promise.race([
      Promise.all([waitForPort(smtpPort, 15_000), waitForPort(uiPort, 15_000)]),
      exited.then(() => Promise.reject(new Error(`Mailpit exited: ${stderr}`))),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    uiUrl,
    apiUrl: `${uiUrl}/api/v1`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function emlFallback(dataDir: string): RunningMail {
  const dir = path.join(dataDir, 'mail');
  fs.mkdirSync(dir, { recursive: true });
  return { smtpUrl: pathToFileURL(dir).href, uiUrl: dir, stop: async () => {} };
}
