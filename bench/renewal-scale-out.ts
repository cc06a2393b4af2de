/**
 * The renewal scale-out figure, on the full Temporal server on PostgreSQL (`BENCH_TEMPORAL=postgres npx tsx
 * bench/subscriptions.ts`): the same burst of BENCH_SUB_DUE renewals due at one instant, first with one worker
 * process, then with two, each worker in a process of its own (bench/renewal-worker.ts) and the stack's in-process
 * worker stopped meanwhile. Per phase: renewals/s and CPU per renewal (every process, the workers included); then
 * the factor, two workers' renewals/s over one's. On a 2-core machine the cores bound the factor, not the design:
 * a second worker can only take CPU the first one was not getting.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stack, withWorkerDown } from '../test/helpers/stack';
import { startChild } from './processes/child';
import {
  measureSubscriptions,
  subscriptionReport,
  type RenewalWindowHooks,
  type SubscriptionBenchResult,
} from './subscriptions';

export interface ScaleOutPhase {
  workers: number;
  result: SubscriptionBenchResult;
}

/** Runs the burst with 1, then 2 worker processes; `hooks` apply to the first phase (the Go profile). */
export async function measureScaleOut(
  log: (message: string) => void,
  hooks: RenewalWindowHooks = {},
): Promise<ScaleOutPhase[]> {
  const bundleFile = path.join(os.tmpdir(), `switchyard-bench-workflows-${process.pid}.json`);
  fs.writeFileSync(bundleFile, JSON.stringify(stack().workflowBundle));
  const env = { ...process.env, ...stack().env, BENCH_WORKFLOW_BUNDLE: bundleFile };
  const phases: ScaleOutPhase[] = [];
  try {
    await withWorkerDown(async () => {
      for (const workers of [1, 2]) {
        log(`scale-out: starting ${workers} worker process(es)…`);
        const children = await Promise.all(
          Array.from({ length: workers }, () => startChild<{ pid: number }>('../renewal-worker', { env })),
        );
        try {
          const workerPids = children.map((child) => child.ready.pid);
          const result = await measureSubscriptions(log, workers === 1 ? hooks : {}, { sleeping: 0, workerPids });
          phases.push({ workers, result });
        } finally {
          await Promise.all(children.map((child) => child.stop()));
        }
      }
    });
  } finally {
    fs.rmSync(bundleFile, { force: true });
  }
  return phases;
}

export function scaleOutReport(phases: ScaleOutPhase[]): string[] {
  const [one, two] = phases.map((phase) => phase.result);
  const factor = two.renewalsPerSecond / one.renewalsPerSecond;
  const cpu = (result: SubscriptionBenchResult) => result.profile.cpuMsPerRenewal;
  const row = ({ workers, result }: ScaleOutPhase) =>
    `| ${workers} | ${result.due} | ${result.renewalsPerSecond.toFixed(1)} | ${cpu(result).all.toFixed(1)} | ` +
    `${cpu(result)['worker processes'].toFixed(1)} | ${(cpu(result)['temporal server'] + cpu(result)['temporal postgresql']).toFixed(1)} | ` +
    `${cpu(result).postgresql.toFixed(1)} | ${cpu(result)['bench process'].toFixed(1)} | ${result.profile.machine.busyCores.toFixed(2)} |`;
  return [
    'Renewal scale-out on the full Temporal server on PostgreSQL (workers each in a process of their own):',
    '',
    '| worker processes | due | renewals/s | CPU per renewal, all (ms) | workers | Temporal + its PostgreSQL | app PostgreSQL | bench process (sandbox PSP, client) | cores busy of ' +
      `${os.cpus().length} |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...phases.map(row),
    '',
    `Scale-out factor, two worker processes over one: ${factor.toFixed(2)} (bounded by this machine's ` +
      `${os.cpus().length} cores, shared by every process above)`,
    '',
    ...phases.flatMap((phase) => [`${phase.workers} worker process(es):`, ...subscriptionReport(phase.result).text]),
  ];
}
