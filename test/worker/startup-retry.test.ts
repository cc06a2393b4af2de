/**
 * Rule: a worker started while PostgreSQL is restarting waits for it (bounded) instead of exiting. Runs
 * the real worker process (`worker/main.ts`) against the stack's PostgreSQL through a TCP proxy that is down when the
 * worker starts and comes up at the same address once the worker has said it is retrying; and, when it never comes
 * back, the worker still exits as failed once its bound has passed.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { stack } from '../helpers/stack';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

const REPO = path.resolve(__dirname, '../..');

interface WorkerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** The JSON log lines written so far. */
  lines(): Array<{ level: number; msg: string; err?: { message?: string } }>;
  /** Resolves when a log line matches, rejects if the process exits first. */
  waitFor(match: (line: { level: number; msg: string }) => boolean): Promise<void>;
}

function startWorkerProcess(databasePort: number, retrySeconds: number): WorkerProcess {
  const databaseUrl = new URL(stack().config.databaseUrl);
  databaseUrl.port = String(databasePort);
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    cwd: REPO,
    env: {
      ...process.env,
      ...stack().env,
      DATABASE_URL: databaseUrl.toString(),
      LOG_LEVEL: 'info',
      WORKER_STARTUP_RETRY_SECONDS: String(retrySeconds),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  const waiting = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const check of waiting) check();
  });
  child.stderr.resume();
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const lines = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message?: string } });
  return {
    child,
    exited,
    lines,
    waitFor: (match) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!lines().some(match)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
        void exited.then((code) => {
          if (waiting.delete(check)) reject(new Error(`the worker exited (code ${code}) first:\n${stdout}`));
        });
      }),
  };
}

/** A port that nothing listens on now, where a proxy to the stack's PostgreSQL can be started later. */
async function downPort(): Promise<number> {
  const probe = await startTcpProxy(stack().databasePort);
  await probe.close();
  return probe.port;
}

const retrying = (line: { level: number; msg: string }) =>
  line.level === 40 && line.msg.includes('PostgreSQL is unreachable; retrying');

describe('Rule: a worker started while PostgreSQL is restarting waits for it instead of exiting', function () {
  this.timeout(180_000);
  let proxy: TcpProxy | undefined;
  let worker: WorkerProcess | undefined;

  afterEach(async () => {
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    await proxy?.close();
    proxy = undefined;
  });

  it('retries PostgreSQL with backoff, starts once it is back, and stops cleanly', async () => {
    const port = await downPort();
    worker = startWorkerProcess(port, 120);
    await worker.waitFor(retrying);
    proxy = await startTcpProxy(stack().databasePort, '127.0.0.1', port);
    await worker.waitFor((line) => line.msg === 'Worker started');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).to.equal(0);
  });

  it('gives up after its bound: exit code 1 and one fatal line naming the error', async () => {
    worker = startWorkerProcess(await downPort(), 1);
    const code = await worker.exited;
    expect(code).to.equal(1);
    expect(worker.lines().filter(retrying), 'retried before giving up').to.not.be.empty;
    const fatal = worker.lines().filter((line) => line.level === 60);
    expect(fatal.map((line) => line.msg)).to.deep.equal(['Worker failed']);
    expect(fatal[0].err?.message).to.include('ECONNREFUSED');
  });
});
