/**
 * The ceiling a charge can reach on this Temporal server: no-op workflows shaped like a charge (same number of
 * local and regular activities, nothing inside them) run by a worker of their own on a task queue of their own,
 * against the same server as the real stack. `npm run bench` reports charges/s as a ratio of the matching shape.
 *
 * Per shape: the p50 of sequential executions by one client, and completed workflows/s with BENCH_CONNECTIONS
 * clients looping for BENCH_DURATION seconds (with their p50/p99).
 * Standalone: `TEMPORAL_ADDRESS=host:port npx tsx bench/temporal-ceiling.ts` (else a test dev server is started).
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';

export interface CeilingShape {
  name: string;
  /** One letter per step: `a` regular activity, `l` local activity (see temporal-ceiling.workflows.ts). */
  shape: string;
}

export interface CeilingRow extends CeilingShape {
  singleP50: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** The charge as it was (open, plan, attempt, finalize: four activities) and as it is now (see docs/benchmarks.md). */
export const CEILING_SHAPES: CeilingShape[] = [
  { name: '1 activity', shape: 'a' },
  { name: '4 activities (the charge as it was)', shape: 'aaaa' },
  { name: 'local + activity + local (a 1-attempt charge)', shape: 'lal' },
  { name: 'local + 3 activities + local (a 3-attempt charge)', shape: 'laaal' },
];

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function measureTemporalCeiling(
  options: { address: string; namespace?: string; durationSeconds: number; connections: number; singles?: number },
  log: (message: string) => void,
  shapes: CeilingShape[] = CEILING_SHAPES,
): Promise<CeilingRow[]> {
  const namespace = options.namespace ?? 'default';
  const taskQueue = `bench-ceiling-${randomUUID().slice(0, 8)}`;
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: require.resolve('./temporal-ceiling.workflows'),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
    }),
    activities: { noop: async (step: number) => step },
  });
  // The client shares the worker's native connection, as the API does under `npm start` (eager start possible).
  const client = new Client({ connection, namespace });
  const run = async (shape: string) => {
    const started = performance.now();
    await client.workflow.execute('ceilingWorkflow', {
      taskQueue,
      workflowId: `ceiling-${randomUUID()}`,
      args: [shape],
      requestEagerStart: true,
    });
    return performance.now() - started;
  };
  const rows: CeilingRow[] = [];
  await worker.runUntil(async () => {
    for (const { name, shape } of shapes) {
      log(`temporal ceiling: ${name}`);
      await run(shape); // warm-up
      const singles: number[] = [];
      for (let i = 0; i < (options.singles ?? 10); i++) singles.push(await run(shape));
      const latencies: number[] = [];
      const until = performance.now() + options.durationSeconds * 1000;
      await Promise.all(
        Array.from({ length: options.connections }, async () => {
          while (performance.now() < until) latencies.push(await run(shape));
        }),
      );
      singles.sort((a, b) => a - b);
      latencies.sort((a, b) => a - b);
      rows.push({
        name,
        shape,
        singleP50: percentile(singles, 50),
        perSecond: latencies.length / options.durationSeconds,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
      });
    }
  });
  await connection.close();
  return rows;
}

/** Which ceiling shape each charge scenario of bench/transactions.ts is compared with. */
const CHARGE_SHAPES: Array<{ scenario: RegExp; shape: string }> = [
  { scenario: /^POST \/transactions \(1 attempt/, shape: 'lal' },
  { scenario: /^POST \/transactions \(3 attempts/, shape: 'laaal' },
];

/** The ceiling table, then each charge scenario's rate as a share of its shape's ceiling from the same run. */
export function ceilingReport(
  rows: CeilingRow[],
  charges: Array<{ scenario: string; requestsPerSecond: number }> = [],
): { text: string[]; markdown: string[] } {
  const ratios = charges.flatMap((charge) => {
    const shape = CHARGE_SHAPES.find((entry) => entry.scenario.test(charge.scenario))?.shape;
    const ceiling = rows.find((row) => row.shape === shape);
    if (!ceiling) return [];
    const share = (100 * charge.requestsPerSecond) / ceiling.perSecond;
    return [
      `${charge.scenario}: ${charge.requestsPerSecond.toFixed(1)}/s = ${share.toFixed(0)} % of the no-op ceiling ` +
        `(${ceiling.name}: ${ceiling.perSecond.toFixed(1)}/s)`,
    ];
  });
  const header = ['Temporal ceiling (no-op workflow)', 'One client p50 (ms)', 'Workflows/s', 'p50 (ms)', 'p99 (ms)'];
  const cells = (row: CeilingRow) => [
    row.name,
    row.singleP50.toFixed(0),
    row.perSecond.toFixed(1),
    row.p50.toFixed(0),
    row.p99.toFixed(0),
  ];
  return {
    text: [header.join('  |  '), ...rows.map((row) => cells(row).join('  |  ')), ...ratios],
    markdown: [
      `| ${header.join(' | ')} |`,
      `| ${header.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
      ...rows.map((row) => `| ${cells(row).join(' | ')} |`),
      ...(ratios.length ? ['', ...ratios.map((line) => `- ${line}`)] : []),
    ],
  };
}

if (require.main === module) {
  void (async () => {
    const { DefaultLogger, Runtime } = await import('@temporalio/worker');
    Runtime.install({ logger: new DefaultLogger('WARN') });
    let address = process.env.TEMPORAL_ADDRESS;
    let stop: () => Promise<void> = async () => undefined;
    if (!address) {
      const { startTemporalForTests } = await import('../scripts/lib/temporal-dev-server');
      const temporal = await startTemporalForTests();
      address = temporal.address;
      stop = temporal.stop;
    }
    const log = (message: string) => process.stderr.write(`[ceiling] ${message}\n`);
    const shapes = process.env.CEILING_SHAPES
      ? process.env.CEILING_SHAPES.split(',').map((shape) => ({ name: shape, shape }))
      : CEILING_SHAPES;
    const rows = await measureTemporalCeiling(
      {
        address,
        durationSeconds: Number(process.env.BENCH_DURATION ?? 5),
        connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
      },
      log,
      shapes,
    );
    process.stdout.write(`${ceilingReport(rows).text.join('\n')}\n`);
    await stop();
  })().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
