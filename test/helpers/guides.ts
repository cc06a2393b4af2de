/**
 * Runs a guide of docs/guides/ exactly as written: its ```sh blocks, in order, in one bash process (so a variable
 * or function a step defines is there for the next, as in the reader's terminal), with the guide's placeholders
 * (<MERCHANT_SECRET_KEY>, …) filled in. Its ```html block is the copy-paste page, served as written. Editing a
 * guide's steps changes what the test runs.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createTenant, type Tenant } from './factories';
import { stack } from './stack';

export const GUIDES_DIR = path.join(__dirname, '..', '..', 'docs', 'guides');

export function guideBlocks(name: string, language: 'sh' | 'html' | 'js'): string[] {
  const text = fs.readFileSync(path.join(GUIDES_DIR, name), 'utf8');
  return [...text.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'gm'))].map((match) => match[1]);
}

export function fill(text: string, placeholders: Record<string, string>): string {
  const filled = text.replace(/<([A-Z_]+)>/g, (whole, name: string) => placeholders[name] ?? whole);
  const left = /<([A-Z][A-Z_]+)>/.exec(filled);
  if (left) throw new Error(`placeholder ${left[0]} has no value in the test`);
  return filled;
}

const DONE = '__guide_step_done__';

/** One bash process a guide's steps run in, one after the other. */
export class GuideShell {
  private readonly bash: ChildProcessWithoutNullStreams;
  private output = '';
  private errors = '';
  private waiting: (() => void) | null = null;

  /** `cwd`: the reader's folder, where the files a guide says to save are. */
  constructor(env: Record<string, string>, cwd?: string) {
    this.bash = spawn('bash', ['--norc', '--noprofile'], { env: { ...process.env, ...env }, cwd });
    this.bash.stdout.on('data', (chunk: Buffer) => {
      this.output += chunk.toString();
      if (this.output.includes(DONE)) this.waiting?.();
    });
    this.bash.stderr.on('data', (chunk: Buffer) => (this.errors += chunk.toString()));
  }

  /**
   * Runs one step; resolves with what it printed (stdout). A step that exits non-zero fails with its stderr, and so
   * does one in which the setup block's `field` reported an error answer: the reader would see it, even where the
   * step's last command succeeded.
   */
  async run(step: string): Promise<string> {
    this.output = '';
    this.errors = '';
    const done = new Promise<void>((resolve) => (this.waiting = resolve));
    this.bash.stdin.write(`${step}\necho "${DONE} $?"\n`);
    await done;
    const [printed, status] = this.output.split(DONE);
    if (status.trim() !== '0' || /^error: /m.test(this.errors)) {
      throw new Error(`step failed (${status.trim()}):\n${step}\n${this.errors}`);
    }
    return printed;
  }

  /** A shell variable's value, as a later step would see it. */
  async value(name: string): Promise<string> {
    return (await this.run(`printf '%s\\n' "$${name}"`)).trim();
  }

  close(): void {
    this.bash.kill();
  }
}

/** Serves one page at http://127.0.0.1:<port>/ (the guide's copy-paste page, as a merchant would host it). */
export async function servePage(html: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      // The browser keeps its keep-alive connection open; closing waits for it otherwise (minutes).
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${port}/`, close };
}

/** The keys a guide's reader has: what `npm run bootstrap` prints. */
export type GuideTenant = Pick<Tenant, 'merchant_secret_key' | 'merchant_public_key' | 'merchant_id'>;

/**
 * The stack the guides run against: the test stack, or — in the newcomer run (scripts/newcomer.ts) — the one
 * `npm start` started, named by NEWCOMER_API and NEWCOMER_SANDBOX.
 */
export function guideTarget(): { api: string; sandbox: string } {
  const api = process.env.NEWCOMER_API;
  if (api) return { api, sandbox: process.env.NEWCOMER_SANDBOX ?? 'http://127.0.0.1:4010' };
  return { api: stack().url, sandbox: stack().sandboxUrl };
}

let bootstrapped = 0;

/**
 * A new organization's keys: on the test stack from the factory; in the newcomer run from `npm run bootstrap`,
 * as the guides' setup block tells the reader (each guide on its own organization, as if it were the first).
 */
export async function guideTenant(): Promise<GuideTenant> {
  if (!process.env.NEWCOMER_API) return createTenant();
  bootstrapped += 1;
  const printed = await new Promise<string>((resolve, reject) => {
    const args = ['run', '--silent', 'bootstrap', '--', '--org-name', `Guide reader ${bootstrapped}`];
    args.push('--merchant-name', 'Acme Store', '--owner-email', `reader${bootstrapped}@example.com`);
    const child = spawn('npm', args, { cwd: path.join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`bootstrap exited ${code}:\n${stderr}`)),
    );
  });
  return JSON.parse(printed) as GuideTenant;
}

/** The shell of a guide: the guides' setup block (docs/guides/README.md) run, with this tenant's keys filled in. */
export async function guideShell(
  tenant: GuideTenant,
  env: Record<string, string> = {},
  cwd?: string,
): Promise<GuideShell> {
  const { api, sandbox } = guideTarget();
  const shell = new GuideShell({ API: api, SANDBOX: sandbox, ...env }, cwd);
  const placeholders = {
    MERCHANT_SECRET_KEY: tenant.merchant_secret_key,
    MERCHANT_PUBLIC_KEY: tenant.merchant_public_key,
    MERCHANT_ID: tenant.merchant_id,
  };
  for (const block of guideBlocks('README.md', 'sh')) await shell.run(fill(block, placeholders));
  return shell;
}
