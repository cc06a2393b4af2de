/**
 * Mailpit, the local mail catcher: `npm start` and the test stack send e-mail to its SMTP port, and a developer
 * reads it in the browser (or a test through its HTTP API). The binary is built once with `go install` into the
 * tool cache, like the Temporal CLI; without it (and without Go) mail goes to .eml files instead (SMTP_URL=file://).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CACHE_DIR, log } from './paths';
import { portInUse, waitForPort } from './processes';
import { which } from './temporal-binaries';

const MAILPIT_MODULE = 'github.com/axllent/mailpit@v1.27.11';

export interface RunningMail {
  /** What SMTP_URL should be. */
  smtpUrl: string;
  /** Mailpit's web UI and API, or the directory .eml files are written to. */
  uiUrl: string;
  /** Mailpit's HTTP API base (undefined with the .eml fallback). */
  apiUrl?: string;
  stop(): Promise<void>;
}

/** The cached Mailpit binary, built with Go when absent and Go is there; undefined otherwise. */
export async function resolveMailpit(): Promise<string | undefined> {
  if (process.env.MAILPIT_PATH) return process.env.MAILPIT_PATH;
  const cached = path.join(CACHE_DIR, 'bin', 'mailpit');
  if (fs.existsSync(cached)) return cached;
  const onPath = which('mailpit');
  if (onPath || !which('go')) return onPath;
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  const gobin = fs.mkdtempSync(path.join(CACHE_DIR, 'bin', '.building-mailpit-'));
  try {
    log(`building Mailpit: go install ${MAILPIT_MODULE} (once)`);
    await new Promise<void>((resolve, reject) => {
      const child = spawn('go', ['install', '-ldflags=-s -w', MAILPIT_MODULE], {
        env: { ...process.env, GOBIN: gobin },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install exited with ${code}`))));
    });
    fs.renameSync(path.join(gobin, 'mailpit'), cached);
    return cached;
  } catch (error) {
    log(`could not build Mailpit (${String(error)}); e-mail goes to .eml files`);
    return undefined;
  } finally {
    fs.rmSync(gobin, { recursive: true, force: true });
  }
}

export async function startMailCatcher(options: {
  dataDir: string;
  smtpPort?: number;
  uiPort?: number;
}): Promise<RunningMail> {
  const { dataDir, smtpPort = 1025, uiPort = 8025 } = options;
  const binary = await resolveMailpit();
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
