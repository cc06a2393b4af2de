/**
 * `npm run bench`: HTTP throughput of the API against a bare Koa hello-world, on a real stack (embedded
 * PostgreSQL, Temporal dev server, worker) started in-process the way the tests start it.
 *
 * Env: BENCH_DURATION (seconds measured per scenario, default 10), BENCH_CONNECTIONS (default 10),
 * BENCH_WARMUP (seconds of unrecorded load before each scenario, so JIT and connection pools are warm; default 2).
 * The POST /transactions scenarios (bench/transactions.ts) run the full charge workflow per request;
 * bench/webhook-isolation.ts measures charges while webhook endpoints hang (BENCH_HANGING_DELIVERIES).
 * Progress goes to stderr; the results (text table, then markdown) go to stdout.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import autocannon from 'autocannon';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startApi, type RunningApi } from '../api/server';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { createTenant, customerInput } from '../test/helpers/factories';
import { machine, markdownTable, textTable, type Row } from './report';
import { measureWebhookDeliveries, webhookReport } from './webhooks';
import { transactionScenarios } from './transactions';
import { isolationReport, measureChargesDuringHangingWebhooks } from './webhook-isolation';
import { ceilingReport, measureTemporalCeiling } from './temporal-ceiling';

function envInt(name: string, fallback: number, min: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}`);
  return value;
}

const DURATION = envInt('BENCH_DURATION', 10, 1);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10, 1);
const WARMUP = envInt('BENCH_WARMUP', 2, 0);
const RATE_LIMIT = { limit: 1_000_000_000, windowSeconds: 60 };

interface Scenario {
  name: string;
  /** The status every measured request must get; anything else makes the run invalid. */
  expectedStatus: number;
  options: autocannon.Options;
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function startHelloWorld(): Promise<Server> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  const server = app.listen(0);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return server;
}

async function post(url: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${url} → ${response.status} ${text}`);
  return JSON.parse(text).data;
}

async function scenarios(apiUrl: string, helloUrl: string): Promise<Scenario[]> {
  const tenant = await createTenant();
  const key = tenant.merchant_secret_key;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const customers = `${apiUrl}/api/v1/customers`;

  const customer = await post(customers, key, customerInput());

  // (d) The first request with this key runs once here, so every measured request is a replay (200).
  const replayKey = `bench-replay-${randomUUID()}`;
  const replayInput = customerInput();
  await post(customers, key, replayInput, { 'idempotency-key': replayKey });

  // (c) A fresh email per request, so every one creates a customer (201), not a lookup of an existing one (200).
  const runId = randomUUID().slice(0, 8);
  let counter = 0;
  const template = customerInput();

  return [
    { name: 'hello world (bare Koa)', expectedStatus: 200, options: { url: helloUrl } },
    {
      name: 'GET /customers/:id',
      expectedStatus: 200,
      options: { url: `${customers}/${customer.id}`, headers },
    },
    {
      name: 'POST /customers (create)',
      expectedStatus: 201,
      options: {
        url: customers,
        requests: [
          {
            method: 'POST',
            headers,
            setupRequest: (request) => ({
              ...request,
              body: JSON.stringify({ ...template, email: `bench.${runId}.${++counter}@example.com` }),
            }),
          },
        ],
      },
    },
    {
      name: 'POST /customers (idempotent replay)',
      expectedStatus: 200,
      options: {
        url: customers,
        method: 'POST',
        headers: { ...headers, 'idempotency-key': replayKey },
        body: JSON.stringify(replayInput),
      },
    },
    ...(await transactionScenarios(apiUrl)),
  ];
}

async function measure(scenario: Scenario): Promise<{ row: Omit<Row, 'ratio'>; problems: string[] }> {
  log(`${scenario.name}: ${WARMUP}s warm-up, then ${DURATION}s measured, ${CONNECTIONS} connections`);
  if (WARMUP > 0) await autocannon({ ...scenario.options, duration: WARMUP, connections: CONNECTIONS });
  const result = await autocannon({ ...scenario.options, duration: DURATION, connections: CONNECTIONS });
  const problems: string[] = [];
  const unexpected = Object.entries(result.statusCodeStats).filter(
    ([status]) => Number(status) !== scenario.expectedStatus,
  );
  if (unexpected.length > 0) {
    problems.push(
      `${scenario.name}: expected only ${scenario.expectedStatus}, got ${unexpected.map(([s, { count }]) => `${count}× ${s}`).join(', ')}`,
    );
  }
  if (result.errors > 0 || result.timeouts > 0) {
    problems.push(`${scenario.name}: ${result.errors} connection errors, ${result.timeouts} timeouts`);
  }
  return {
    row: {
      scenario: scenario.name,
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
    },
    problems,
  };
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });

  log('starting the stack (embedded PostgreSQL, Temporal dev server, worker)…');
  await startStack();
  let api: RunningApi | undefined;
  let hello: Server | undefined;
  try {
    // The production path: no response validation; a rate limit high enough never to answer 429.
    api = await startApi(
      { ...stack().config, validateResponses: false, rateLimit: { ...stack().config.rateLimit, ...RATE_LIMIT } },
      0,
      { workerConnection: stack().worker.connection }, // as `npm start`: charges start eagerly
    );
    hello = await startHelloWorld();
    const helloUrl = `http://localhost:${(hello.address() as AddressInfo).port}`;

    const rows: Row[] = [];
    const problems: string[] = [];
    for (const scenario of await scenarios(api.url, helloUrl)) {
      const measured = await measure(scenario);
      const baseline = rows[0]?.requestsPerSecond ?? measured.row.requestsPerSecond;
      rows.push({ ...measured.row, ratio: measured.row.requestsPerSecond / baseline });
      problems.push(...measured.problems);
    }

    const about = [
      ...machine(),
      `Load: autocannon (in the same process as the servers), ${DURATION} s measured per scenario after ${WARMUP} s warm-up, ${CONNECTIONS} connections`,
      'API: validateResponses off (the production path); rate limit raised to 1e9 requests/60 s so the bench ' +
        'measures the service, not 429s (the per-key counter upsert still runs on every request)',
    ];
    const ceiling = ceilingReport(
      await measureTemporalCeiling(
        { address: stack().config.temporal.address, durationSeconds: DURATION, connections: CONNECTIONS },
        log,
      ),
      rows,
    );
    const webhooks = webhookReport(await measureWebhookDeliveries(api.url, log));
    // Last: its deliveries keep retrying against the closed endpoint until the stack stops.
    const isolation = isolationReport(await measureChargesDuringHangingWebhooks(api.url, log));

    const warnings = problems.map((problem) => `WARNING: run invalid: ${problem}`);
    process.stdout.write(
      [
        '',
        ...about,
        '',
        textTable(rows),
        '',
        ...ceiling.text,
        '',
        ...webhooks.text,
        ...isolation.text,
        '',
        ...warnings,
        '',
        '--- markdown ---',
        '',
        ...about.map((line) => `- ${line}`),
        '',
        markdownTable(rows),
        '',
        ...ceiling.markdown,
        '',
        ...webhooks.markdown,
        '',
        ...isolation.markdown,
        ...warnings.map((warning) => `\n**${warning}**`),
        '',
      ].join('\n'),
    );
  } finally {
    log('stopping…');
    hello?.closeAllConnections();
    await new Promise<void>((resolve) => (hello ? hello.close(() => resolve()) : resolve()));
    await api?.stop();
    await stopStack();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
