/**
 * The API request path for `npm run bench`: the bare Koa baseline, liveness, a read, a create and an idempotent
 * replay, the reads each with their floor (bare Koa + pg reading the same customer row). Hot-path scenarios are
 * also what the CI regression check measures (test/api/performance-regression.test.ts). Every scenario is plain
 * data, for the load generator's process (bench/processes/load-generator.ts).
 */
import { randomUUID } from 'node:crypto';
import { createTenant, customerInput } from '../test/helpers/factories';
import type { HttpScenario } from './harness';
import type { LoadGenerator } from './processes/fleet';
import { UNIQUE } from './processes/load-generator';

export const helloScenario = (helloUrl: string): HttpScenario => ({
  name: 'hello world (bare Koa)',
  expectedStatus: 200,
  options: { url: helloUrl },
});

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

/**
 * GET /customers/:id, the idempotent replay and GET /health/live: the paths the regression check guards. `pgUrl`:
 * the bare Koa + pg baseline (bench/processes/baselines.ts), the floor of the two reads.
 */
export async function hotPathScenarios(apiUrl: string, pgUrl: string): Promise<HttpScenario[]> {
  const tenant = await createTenant();
  const key = tenant.merchant_secret_key;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const customers = `${apiUrl}/api/v1/customers`;
  const customer = await post(customers, key, customerInput());

  // The first request with this key runs once here, so every measured request is a replay (200).
  const replayKey = `bench-replay-${randomUUID()}`;
  const replayInput = customerInput();
  await post(customers, key, replayInput, { 'idempotency-key': replayKey });
  const floor: HttpScenario = {
    name: 'bare Koa + pg (the same customer row, pool of 10)',
    expectedStatus: 200,
    options: { url: `${pgUrl}/${tenant.merchant_id}/${customer.id}` },
  };

  return [
    {
      name: 'GET /health/live',
      expectedStatus: 200,
      options: { url: `${apiUrl}/health/live` },
      figure: 'health_live',
      paired: true,
    },
    {
      name: 'GET /customers/:id',
      expectedStatus: 200,
      options: { url: `${customers}/${customer.id}`, headers },
      figure: 'customer_get',
      paired: true,
      floor,
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
      figure: 'customer_replay',
      paired: true,
      floor,
    },
  ];
}

/**
 * A fresh email per request (the load generator makes UNIQUE a number of each request's own), so every one creates a customer
 * (201), not a lookup of an existing one (200).
 */
export async function createScenario(apiUrl: string): Promise<HttpScenario> {
  const tenant = await createTenant();
  const headers = { authorization: `Bearer ${tenant.merchant_secret_key}`, 'content-type': 'application/json' };
  const runId = randomUUID().slice(0, 8);
  return {
    name: 'POST /customers (create)',
    expectedStatus: 201,
    figure: 'customer_create',
    paired: true,
    options: {
      url: `${apiUrl}/api/v1/customers`,
      method: 'POST',
      headers,
      body: JSON.stringify({ ...customerInput(), email: `bench.${runId}.${UNIQUE}@example.com` }),
    },
  };
}

/**
 * Unrecorded load on every path, 2 s each, before any is measured: a process just started runs its code
 * unoptimized for seconds, which would count against whichever path comes first.
 */
export async function warmUp(load: LoadGenerator, scenarios: HttpScenario[]): Promise<void> {
  for (const scenario of scenarios) await load.run({ ...scenario.options, duration: 2, connections: 10 });
}
