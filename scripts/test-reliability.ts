/**
 * `npm run test:reliability`: the reliability suite in one mocha run against the same real stack as
 * `npm test` — every test/reliability/*.reliability.ts, the leak grep last because it scans what the others left.
 * The stack's structured logs are captured into the artefacts directory (the leak grep reads them) instead of
 * the console; every `[reliability] <part>: …` summary line is repeated together at the end.
 * Sizes: see docs/reliability.md (environment variables RELIABILITY_*). Extra arguments go to mocha; naming
 * files runs only those.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import { resolveTemporalCli, resolveTimeSkippingTestServer } from './lib/temporal-binaries';
import { resolveSchemathesis } from './lib/schemathesis';
import { REPO_ROOT, log } from './lib/paths';

const SUITE_DIR = path.join(REPO_ROOT, 'test', 'reliability');
/** Scans the artefacts of every other part, so it runs after them. */
const LAST = 'leak-grep.reliability.ts';

function suiteFiles(): string[] {
  const files = fs
    .readdirSync(SUITE_DIR)
    .filter((name) => name.endsWith('.reliability.ts'))
    .sort((a, b) => Number(a === LAST) - Number(b === LAST) || a.localeCompare(b));
  return files.map((name) => path.relative(REPO_ROOT, path.join(SUITE_DIR, name)));
}

const isStackLog = (line: string) => line.startsWith('{"level":') && line.includes('"service":"switchyard"');

async function main(): Promise<number> {
  const cli = await resolveTemporalCli();
  const testServer = await resolveTimeSkippingTestServer();
  const schemathesis = resolveSchemathesis();
  const artifacts = path.resolve(
    process.env.RELIABILITY_ARTIFACTS_DIR ?? path.join(REPO_ROOT, 'test-output', 'reliability'),
  );
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(path.join(artifacts, 'logs'), { recursive: true });
  const stackLog = fs.createWriteStream(path.join(artifacts, 'logs', 'stack.jsonl'));
  log(`reliability suite: artefacts in ${artifacts}; schemathesis ${schemathesis}`);

  const extra = process.argv.slice(2);
  // `npm run test:reliability -- test/reliability/x.reliability.ts` runs only the files named.
  const specs = extra.some((arg) => arg.endsWith('.ts')) ? [] : suiteFiles();
  const child = spawn(process.execPath, [require.resolve('mocha/bin/mocha.js'), ...specs, ...extra], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      ...(cli ? { TEMPORAL_CLI_PATH: cli } : {}),
      TEMPORAL_TEST_SERVER_PATH: testServer,
      SCHEMATHESIS_BIN: schemathesis,
      RELIABILITY_ARTIFACTS_DIR: artifacts,
      // Logs are one of the things the leak grep searches, so the stack logs requests here.
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      // The fuzzer and the sweeps send thousands of requests per key; a 429 would hide what they look for.
      RATE_LIMIT_REQUESTS: process.env.RATE_LIMIT_REQUESTS ?? '1000000',
    },
  });
  const summaries: string[] = [];
  const lines = readline.createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (isStackLog(line)) {
      stackLog.write(line + '\n');
      return;
    }
    process.stdout.write(line + '\n');
    const at = line.indexOf('[reliability] ');
    if (at >= 0) summaries.push(line.slice(at));
  });
  const code = await new Promise<number>((resolve) => child.on('close', (status) => resolve(status ?? 1)));
  await new Promise<void>((resolve) => stackLog.end(resolve));
  process.stdout.write(
    '\nReliability summary\n' + (summaries.length ? summaries.join('\n') : '(no part reported)') + '\n',
  );
  return summaries.length ? code : code || 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
