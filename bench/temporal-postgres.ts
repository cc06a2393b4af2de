/**
 * `npm run bench -- --temporal-postgres`: the 1-attempt charge (bench/transactions.ts) against the Temporal dev
 * server the tests use (SQLite in memory) and against a full Temporal server on PostgreSQL as docker-compose.yml
 * runs it (scripts/lib/temporal-postgres-server.ts), each phase on a fresh stack with its own bare Koa baseline.
 *
 * Per phase: bare Koa at BENCH_CONNECTIONS, the charge with one connection (single-charge latency) and at
 * BENCH_CONNECTIONS (charges/s). BENCH_ROUNDS (default 1) repeats both phases, alternating, to expose drift on a
 * shared machine. BENCH_DURATION and BENCH_WARMUP as in bench/run.ts.
 * Renewals on the same server, with its Go CPU profile: `BENCH_TEMPORAL=postgres npx tsx bench/subscriptions.ts`.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import autocannon from 'autocannon';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startApi } from '../api/server';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { startTemporalForTests, type RunningTemporal } from '../scripts/lib/temporal-dev-server';
import { startTemporalOnPostgres } from '../scripts/lib/temporal-postgres-server';
import { machine } from './report';
import { transactionScenarios } from './transactions';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function envInt(name: string, fallback: number, min: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}`);
  return value;
}

const DURATION = envInt('BENCH_DURATION', 10, 1);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10, 1);
const WARMUP = envInt('BENCH_WARMUP', 2, 0);
const ROUNDS = envInt('BENCH_ROUNDS', 1, 1);
const DRAIN_MS = 10_000;

const BACKENDS: { name: string; start: () => Promise<RunningTemporal> }[] = [
  { name: 'dev server (SQLite)', start: startTemporalForTests },
  { name: 'server on PostgreSQL', start: startTemporalOnPostgres },
];

interface Measurement {
  round: number;
  backend: string;
  scenario: string;
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Requests/s relative to the bare Koa row of the same phase. */
  ratio: number;
}

export async function benchTemporalOnPostgres(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const rows: Measurement[] = [];
  const problems: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const backend of BACKENDS) {
      log(`round ${round}: starting the stack with the Temporal ${backend.name}…`);
      await startStack({ startTemporal: backend.start });
      try {
        rows.push(...(await measurePhase(round, backend.name, problems)));
      } finally {
        await stopStack();
      }
    }
  }
  const lines = [
    ...machine().map((line) => `- ${line}`),
    `- Load: autocannon in the same process as the servers, ${DURATION} s measured after ${WARMUP} s warm-up; ` +
      'each phase on a fresh stack; ratio = req/s against that phase’s bare Koa row',
    '',
    '| Round | Temporal | Scenario | Connections | Req/s | p50 (ms) | p99 (ms) | vs. bare Koa |',
    '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((row) =>
      tableLine([
        row.round,
        row.backend,
        row.scenario,
        row.connections,
        row.requestsPerSecond.toFixed(1),
        ms(row.p50),
        ms(row.p99),
        `${(row.ratio * 100).toFixed(2)} %`,
      ]),
    ),
    ...problems.map((problem) => `\n**WARNING: run invalid: ${problem}**`),
    '',
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

/** autocannon's latency histogram has 1 ms resolution. */
const ms = (value: number) => (value < 1 ? '<1' : value.toFixed(0));
const tableLine = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

async function measurePhase(round: number, backend: string, problems: string[]): Promise<Measurement[]> {
  // As bench/run.ts: the production path, and a rate limit high enough never to answer 429.
  const config = stack().config;
  const api = await startApi(
    {
      ...config,
      validateResponses: false,
      rateLimit: { ...config.rateLimit, limit: 1_000_000_000, windowSeconds: 60 },
    },
    0,
  );
  const hello = await startHelloWorld();
  try {
    const [charge] = await transactionScenarios(api.url);
    const runs: [string, autocannon.Options, number, number][] = [
      [
        'hello world (bare Koa)',
        { url: `http://localhost:${(hello.address() as AddressInfo).port}` },
        200,
        CONNECTIONS,
      ],
      [charge.name, charge.options, charge.expectedStatus, 1],
      [charge.name, charge.options, charge.expectedStatus, CONNECTIONS],
    ];
    const rows: Measurement[] = [];
    for (const [scenario, options, expectedStatus, connections] of runs) {
      log(`${backend}: ${scenario}, ${connections} connection(s)`);
      if (WARMUP > 0) await autocannon({ ...options, duration: WARMUP, connections });
      const result = await autocannon({ ...options, duration: DURATION, connections });
      const unexpected = Object.keys(result.statusCodeStats).filter((status) => Number(status) !== expectedStatus);
      if (unexpected.length > 0 || result.errors > 0 || result.timeouts > 0) {
        problems.push(
          `${backend}, ${scenario} (${connections}): statuses ${Object.keys(result.statusCodeStats).join(', ')}, ` +
            `${result.errors} errors, ${result.timeouts} timeouts`,
        );
      }
      const baseline = rows[0]?.requestsPerSecond ?? result.requests.average;
      rows.push({
        round,
        backend,
        scenario,
        connections,
        requestsPerSecond: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        ratio: result.requests.average / baseline,
      });
    }
    return rows;
  } finally {
    // autocannon hangs up on charges still in flight, but their handlers still await the workflow; stopping the API
    // under them closes its Temporal connection and a gRPC retry then throws ("Channel has been shut down").
    await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
    hello.closeAllConnections();
    await new Promise<void>((resolve) => hello.close(() => resolve()));
    await api.stop();
  }
}

async function startHelloWorld(): Promise<Server> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  const server = app.listen(0);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return server;
}
