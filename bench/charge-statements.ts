/**
 * `npx tsx bench/charge-statements.ts`: the SQL statements one POST /transactions costs (1 attempt, a saved card,
 * a merchant with no webhook endpoint; `--cascade`: 3 attempts), counted at the pg driver of this process (the
 * test stack runs API, worker and outbox listener in one process). Not part of `npm run bench`: a probe for the
 * "statements per charge" figure in docs/benchmarks.md. `--list` prints every statement. PROBE_CPU_CHARGES=200 also
 * measures this process's CPU per charge, ten at a time (with RATE_LIMIT_REQUESTS=1000000 beyond ~90 charges).
 */
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startStack, stopStack } from '../test/helpers/stack';
import { createTenant } from '../test/helpers/factories';
import { cascade, override } from '../test/helpers/transactions';
import { createCustomer, saveCard } from '../test/helpers/vault';
import { api } from '../test/helpers/http';
import { tapStatements } from './statement-tap';
import { benchChargeBody } from './transactions';

interface Seen {
  connection: number;
  sql: string;
}

const seen: Seen[] = [];
let recording = false;
const connections = new WeakMap<object, number>();
let nextConnection = 1;
/** Records a statement while recording, with a small number per connection. */
function record(connection: object, sql: string): void {
  if (!recording) return;
  if (!connections.has(connection)) connections.set(connection, nextConnection++);
  seen.push({ connection: connections.get(connection)!, sql });
}

async function charge(key: string, instrumentId: string): Promise<void> {
  const res = await api.post('/transactions', {
    key,
    headers: { 'idempotency-key': randomUUID() },
    body: benchChargeBody(instrumentId),
  });
  if (res.status !== 201) throw new Error(`charge failed: ${res.status} ${res.text}`);
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await startStack();
  tapStatements(record);
  try {
    const tenant = await createTenant();
    const connectors = await cascade(
      tenant,
      process.argv.includes('--cascade') ? ['provider_a', 'provider_a', 'provider_a'] : ['provider_a'],
    );
    if (connectors.length === 3) {
      await override(connectors[0], 'do_not_honor');
      await override(connectors[1], 'insufficient_funds');
    }
    const instrument = await saveCard(tenant, await createCustomer(tenant));
    const instrumentId = (instrument.paymentInstrumentId ?? instrument.id) as string;
    // Warm-up: caches (auth, rate-limit lease, routing) and lazy connections, as in a steady stream of charges.
    for (let i = 0; i < 3; i += 1) await charge(tenant.merchant_secret_key, instrumentId);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const rounds = 5;
    recording = true;
    for (let i = 0; i < rounds; i += 1) await charge(tenant.merchant_secret_key, instrumentId);
    // This process's CPU (every thread: API, worker, Temporal core, sandbox PSP) per charge, ten at a time.
    const cpuCharges = Number(process.env.PROBE_CPU_CHARGES ?? 0);
    if (cpuCharges > 0) {
      recording = false;
      const before = process.cpuUsage();
      const started = Date.now();
      for (let i = 0; i < cpuCharges; i += 10)
        await Promise.all(Array.from({ length: 10 }, () => charge(tenant.merchant_secret_key, instrumentId)));
      const used = process.cpuUsage(before);
      const perCharge = (used.user + used.system) / 1000 / cpuCharges;
      const rate = (cpuCharges / (Date.now() - started)) * 1000;
      process.stdout.write(
        `CPU of this process: ${perCharge.toFixed(1)} ms per charge (${rate.toFixed(1)} charges/s)\n`,
      );
      recording = true;
    }
    // The outbox listener's fan-out runs after commit: let it finish.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    recording = false;
    const perCharge = (n: number) => (n / rounds).toFixed(1);
    const begins = seen.filter((s) => /^(begin|start transaction)/i.test(s.sql)).length;
    const byTable = new Map<string, number>();
    for (const { sql } of seen) {
      const table = /\b(?:from|into|update)\s+"?([a-z_]+)"?/i.exec(sql)?.[1] ?? sql.split(' ')[0].toLowerCase();
      byTable.set(table, (byTable.get(table) ?? 0) + 1);
    }
    process.stdout.write(
      `${seen.length} statements in ${rounds} charges: ${perCharge(seen.length)} per charge, ` +
        `${perCharge(begins)} transactions per charge\n`,
    );
    for (const [table, count] of [...byTable].sort((a, b) => b[1] - a[1]))
      process.stdout.write(`  ${perCharge(count).padStart(5)}  ${table}\n`);
    if (process.argv.includes('--list')) {
      const one = seen.slice(0, Math.ceil(seen.length / rounds));
      for (const { connection, sql } of one) process.stdout.write(`[c${connection}] ${sql.slice(0, 160)}\n`);
    }
  } finally {
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
