/**
 * `npx tsx bench/request-statements.ts`: the SQL statements (= driver round trips) one API request costs, counted at
 * the pg driver of an API configured as `npm run bench` configures it (its own pool, production response handling, a
 * budget that never answers 429). Counts do not depend on machine load, so they are the figure to compare across
 * runs of a shared machine; "API request path, statements" in docs/benchmarks.md quotes them. Per request, steady
 * state (the key cached and its budget leased, as in a stream of requests), then the same after the auth cache was
 * emptied (what every change to api_keys or merchants, anywhere, costs each API process once). `--list` prints the
 * statements of one steady request of each kind.
 */
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startStack, stopStack, stack } from '../test/helpers/stack';
import { createTenant, customerInput } from '../test/helpers/factories';
import { startApi, type RunningApi } from '../api/server';
import { createLogger, logDestination } from '../domain/platform/logger';
import { tapStatements } from './statement-tap';

const ROUNDS = 20;
/** Connections of the measured API's pool: only their statements count (the stack's own API, worker and outbox
 * listener share the driver in this process). */
const apiConnections = new WeakSet<object>();
let seen: string[] = [];

function watchPool(api: RunningApi): void {
  const client = api.deps.orm.em.getConnection().getKnex().client as unknown as {
    acquireConnection(): Promise<object>;
  };
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = async () => {
    const connection = await acquire();
    apiConnections.add(connection);
    return connection;
  };
}

async function send(url: string, init: RequestInit, expected: number): Promise<void> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${init.method ?? 'GET'} ${url} → ${response.status} ${text}`);
}

interface Probe {
  name: string;
  request: () => Promise<void>;
}

/** Statements per request over ROUNDS sequential requests, and the statements of the last one. */
async function measure(probe: Probe): Promise<{ perRequest: number; transactions: number; one: string[] }> {
  seen = [];
  let last: string[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const before = seen.length;
    await probe.request();
    last = seen.slice(before);
  }
  const begins = seen.filter((sql) => /^(begin|start transaction)/i.test(sql)).length;
  return { perRequest: seen.length / ROUNDS, transactions: begins / ROUNDS, one: last };
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await startStack();
  const config = stack().config;
  const api = await startApi(
    { ...config, validateResponses: false, rateLimit: { ...config.rateLimit, limit: 1e9 } },
    0,
    { logger: createLogger('info', logDestination('/dev/null')), workerConnection: stack().worker.connection },
  );
  watchPool(api);
  tapStatements((connection, sql) => {
    if (apiConnections.has(connection)) seen.push(sql);
  });
  try {
    const tenant = await createTenant();
    const headers = { authorization: `Bearer ${tenant.merchant_secret_key}`, 'content-type': 'application/json' };
    const customers = `${api.url}/api/v1/customers`;
    const post = (body: unknown, extra: Record<string, string> = {}) => ({
      method: 'POST',
      headers: { ...headers, ...extra },
      body: JSON.stringify(body),
    });
    const createdResponse = await fetch(customers, post(customerInput()));
    const customerId = ((await createdResponse.json()) as { data: { id: string } }).data.id;
    const replayKey = `probe-replay-${randomUUID()}`;
    const replayBody = customerInput();
    await send(customers, post(replayBody, { 'idempotency-key': replayKey }), 201);

    const probes: Probe[] = [
      { name: 'GET /health/live', request: () => send(`${api.url}/health/live`, {}, 200) },
      { name: 'GET /customers/:id', request: () => send(`${customers}/${customerId}`, { headers }, 200) },
      { name: 'POST /customers (create)', request: () => send(customers, post(customerInput()), 201) },
      {
        name: 'POST /customers (idempotent replay)',
        request: () => send(customers, post(replayBody, { 'idempotency-key': replayKey }), 200),
      },
    ];
    const rows: string[] = [];
    const lists: string[] = [];
    for (const probe of probes) {
      for (let i = 0; i < 3; i += 1) await probe.request(); // warm: key cached, budget leased
      const steady = await measure(probe);
      // Emptied as a NOTIFY from any change to api_keys or merchants empties it: the next request reads again.
      api.deps.authCache.invalidate();
      seen = [];
      await probe.request();
      const afterChange = seen.length;
      rows.push(
        `| ${probe.name} | ${steady.perRequest.toFixed(2)} | ${steady.transactions.toFixed(2)} | ${afterChange} |`,
      );
      lists.push(`${probe.name}:`, ...steady.one.map((sql) => `  ${sql.slice(0, 200)}`));
    }
    process.stdout.write(
      `Statements per request, at the pg driver of the measured API (${ROUNDS} sequential requests each):\n\n` +
        '| request | statements (steady) | transactions (steady) | statements right after the auth cache emptied |\n' +
        '| --- | ---: | ---: | ---: |\n' +
        `${rows.join('\n')}\n`,
    );
    if (process.argv.includes('--list')) process.stdout.write(`\n${lists.join('\n')}\n`);
  } finally {
    await api.stop();
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
