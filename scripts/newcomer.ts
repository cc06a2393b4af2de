/**
 * `npm run test:newcomer`: a newcomer's first hour, with nothing but the README and the guides. On fresh data it
 * runs `npm start` exactly as the README says, checks that every link the start banner prints answers, then runs
 * the guides as written (test/api/guides.test.ts and test/e2e/guides.test.ts, in Chromium) against that stack,
 * each guide on the keys `npm run bootstrap` prints for a new organization. Nothing of the test harness is used: a
 * start that only works under the harness fails here.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, log } from './lib/paths';

const READY = 'Switchyard is running.';
const START_TIMEOUT_MS = 10 * 60_000;
const GUIDE_TESTS = ['test/api/guides.test.ts', 'test/e2e/guides.test.ts'];

/** Starts `npm start` in its own process group; resolves with its banner once it prints it. */
function npmStart(env: NodeJS.ProcessEnv, logFile: string): { child: ChildProcess; banner: Promise<string> } {
  const out = fs.createWriteStream(logFile);
  const child = spawn('npm', ['start'], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  const banner = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start printed no banner in 10 minutes (${logFile})`)),
      START_TIMEOUT_MS,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      out.write(chunk);
      printed += chunk.toString();
      const at = printed.indexOf(READY);
      if (at >= 0 && printed.includes('Ctrl-C stops everything.', at)) {
        clearTimeout(timer);
        resolve(printed.slice(at));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => out.write(chunk));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before it was ready; its output is in ${logFile}`));
    });
  });
  return { child, banner };
}

/** The banner's base addresses: what the guides' calls go to, not pages (their root answers 404, as Stripe's does). */
const BASES = new Set(['API', 'Sandbox PSP']);

/** Every page the banner links (not the sign-in endpoints, which answer POST only), by label; bases first. */
function bannerLinks(banner: string): Map<string, string[]> {
  const links = new Map<string, string[]>();
  for (const line of banner.split('\n')) {
    const [label, rest] = line.split(/:\s+(.*)/s, 2).map((part) => part?.trim());
    if (!rest || label === 'Dashboard API') continue;
    const urls = [...rest.matchAll(/https?:\/\/[^\s,)]+/g)].map((match) => match[0]);
    if (urls.length) links.set(label, urls);
  }
  return links;
}

async function checkLinks(links: Map<string, string[]>): Promise<string[]> {
  const broken: string[] = [];
  for (const [label, urls] of links) {
    for (const url of BASES.has(label) ? urls.slice(1) : urls) {
      const answer = await fetch(url, { redirect: 'manual' }).then(
        (response) => String(response.status),
        (error: Error) => error.message,
      );
      const fine = /^[23]\d\d$/.test(answer);
      log(`${fine ? 'answers' : 'BROKEN '} ${label}: ${url} (${answer})`);
      if (!fine) broken.push(`${label}: ${url} → ${answer}`);
    }
  }
  return broken;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || !child.pid) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGINT');
  const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
  await exited;
  clearTimeout(killer);
}

async function main(): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-newcomer-'));
  // As root, the embedded PostgreSQL runs as `postgres`, which must reach its data directory inside this one.
  fs.chmodSync(dataDir, 0o755);
  // Data of its own (a fresh clone's), the reader's defaults for everything else.
  const env = { ...process.env, SWITCHYARD_DATA_DIR: dataDir };
  // Outside the data directory, which goes at the end: a failed run leaves what npm start printed.
  const logFile = path.join(os.tmpdir(), `${path.basename(dataDir)}.log`);
  log(`npm start on fresh data in ${dataDir}`);
  const { child, banner } = npmStart(env, logFile);
  try {
    const printed = await banner;
    process.stdout.write(printed);
    const links = bannerLinks(printed);
    const broken = await checkLinks(links);
    if (broken.length) {
      console.error(`The start banner's links that do not answer:\n  ${broken.join('\n  ')}`);
      return 1;
    }
    const api = links.get('API')?.[0]?.replace(/\/api\/v1$/, '');
    const sandbox = links.get('Sandbox PSP')?.[0];
    if (!api || !sandbox) throw new Error('The banner names no API or sandbox address');
    const mocha = spawnSync(
      process.execPath,
      [
        require.resolve('mocha/bin/mocha.js'),
        '--no-config',
        '--require',
        'tsx/cjs',
        '--timeout',
        '30000',
        '--exit',
        ...GUIDE_TESTS,
      ],
      { cwd: REPO_ROOT, stdio: 'inherit', env: { ...env, NEWCOMER_API: api, NEWCOMER_SANDBOX: sandbox } },
    );
    if (mocha.status === 0) fs.rmSync(logFile, { force: true });
    return mocha.status ?? 1;
  } finally {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.message);
    process.exit(1);
  },
);
