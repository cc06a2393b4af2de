/**
 * Rule: a worker process exits only on a fatal error, and logs why first — one `fatal` JSON line on stdout (what the
 * chaos report quotes) and the error on stderr (LOG_LEVEL may be silent) — also when the error escaped every
 * handler. Runs a real process with the worker's own exitOnFatal (worker/main.ts).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

const REPO = path.resolve(__dirname, '../..');

async function processThat(failure: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `const { exitOnFatal } = require('./worker/main');
       const { createLogger } = require('./domain/platform/logger');
       exitOnFatal(createLogger('info'));
       setInterval(() => {}, 1000);
       setTimeout(() => { ${failure} }, 10);`,
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

const fatalLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message?: string } })
    .filter((entry) => entry.level === 60);

describe('Rule: a worker process exits only on a fatal error, with a log line saying why', function () {
  this.timeout(60_000);

  it('an uncaught exception: exit code 1, one fatal log line naming the error, the error on stderr', async () => {
    const { code, stdout, stderr } = await processThat(`throw new Error('lost the plot');`);
    expect(code).to.equal(1);
    expect(fatalLines(stdout).map((e) => [e.msg, e.err?.message])).to.deep.equal([
      ['Worker crashed: uncaught exception', 'lost the plot'],
    ]);
    expect(stderr).to.include('Worker crashed: uncaught exception').and.include('lost the plot');
  });

  it('an unhandled rejection: exit code 1, one fatal log line naming the error', async () => {
    const { code, stdout } = await processThat(`void Promise.reject(new Error('nobody listened'));`);
    expect(code).to.equal(1);
    expect(fatalLines(stdout).map((e) => [e.msg, e.err?.message])).to.deep.equal([
      ['Worker crashed: unhandled rejection', 'nobody listened'],
    ]);
  });
});
