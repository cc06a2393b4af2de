/**
 * Subscription billing for `npm run bench`, on the same in-process stack (worker included):
 * - renewals per second: BENCH_SUB_DUE subscriptions (default 1000) whose renewal falls due at the same instant,
 *   each a real renewal (charge-cascade child, sandbox PSP, read-model step); measured from that instant until the
 *   last one has advanced its period;
 * - worker memory with BENCH_SUB_SLEEPING (default 10,000) subscription workflows asleep until a renewal a month
 *   away: the process's RSS and heap after every 1,000 (each quarter in smaller runs) of them has started (goal: flat — the workflow cache
 *   evicts, nothing is held per sleeping subscription).
 * Around the renewals, what limits them (bench/renewal-profile.ts): CPU per renewal and utilisation per process,
 * the bench process by thread, the machine's load, the worker's metrics and a sample of the renewals' histories.
 * Runs alone with `npx tsx bench/subscriptions.ts` (starts and stops its own stack, exports the worker's metrics);
 * there BENCH_TEMPORAL=postgres runs the renewals on a full Temporal server on PostgreSQL (as docker-compose) instead
 * of the dev server, once with one worker process and once with two (measureScaleOut: the scale-out
 * factor), with the server's Go CPU profile taken during the first (BENCH_PPROF_SECONDS, default 20); and
 * BENCH_SUB_SLEEPING=0 skips the sleeping-workflow part (the full server's run has none).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SubscriptionSchema } from '../db/entities';
import { TASK_QUEUES } from '../workflows/definitions';
import { subscriptionWorkflow } from '../workflows/subscription';
import { subscriptionWorkflowId } from '../workflows/subscription.shared';
import type { SubscriptionState } from '../workflows/lib/subscription-state';
import { idFromSeed } from '../domain/platform/ids';
import { stack, withWorkerDown } from '../test/helpers/stack';
import { subscribed } from '../test/helpers/subscriptions';
import { startChild } from './processes/child';
import {
  historyTimings,
  renewalProfileReport,
  startRenewalProfile,
  type HistoryTimings,
  type RenewalProfile,
} from './renewal-profile';

const DAY = 86_400_000;

function envInt(name: string, fallback: number, min = 1): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}`);
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (ms: number) => new Date(ms).toISOString();

/** Runs `work` over 0..count-1, `concurrency` at a time. */
async function inBatches(count: number, concurrency: number, work: (i: number) => Promise<unknown>) {
  for (let start = 0; start < count; start += concurrency) {
    await Promise.all(Array.from({ length: Math.min(concurrency, count - start) }, (_, k) => work(start + k)));
  }
}

export interface SubscriptionBenchResult {
  due: number;
  renewalSeconds: number;
  renewalsPerSecond: number;
  /** Started workflows before the due instant passed (false: the start phase overran, the figure is low). */
  startedInTime: boolean;
  sleeping: number;
  memory: Array<{ started: number; rssMiB: number; heapMiB: number }>;
  /** What the renewal window cost and where it waited. */
  profile: RenewalProfile;
  timings: HistoryTimings | null;
}

/** Hooks around the renewal window (the standalone run's Go profile of the Temporal server). */
export interface RenewalWindowHooks {
  onDue?(): void;
}

/** By default BENCH_SUB_SLEEPING sleeping workflows, and the stack's own worker. */
export interface SubscriptionBenchOptions {
  sleeping?: number;
  /** Workers in processes of their own, the stack's stopped (measureScaleOut): their CPU is counted. */
  workerPids?: number[];
}

const start = (state: SubscriptionState) =>
  stack().api.deps.temporal.client.workflow.start(subscriptionWorkflow, {
    workflowId: subscriptionWorkflowId(state.subscriptionId),
    taskQueue: TASK_QUEUES.payments,
    args: [{ state }],
  });

const terminate = (id: string) =>
  stack()
    .api.deps.temporal.client.workflow.getHandle(subscriptionWorkflowId(id))
    .terminate('bench done')
    .catch(() => undefined);

export async function measureSubscriptions(
  log: (message: string) => void,
  hooks: RenewalWindowHooks = {},
  options: SubscriptionBenchOptions = {},
): Promise<SubscriptionBenchResult> {
  const due = envInt('BENCH_SUB_DUE', 1000);
  const sleeping = options.sleeping ?? envInt('BENCH_SUB_SLEEPING', 10_000, 0);
  const margin = envInt('BENCH_SUB_START_MARGIN_SECONDS', 60) * 1000;

  // One real subscription (a real first charge); the others are copies of its row under their own id and plan,
  // so every renewal is a real, separate charge of the same saved card.
  const sub = await subscribed(new Date(), { billingCycle: 'daily' });
  const em = stack().orm.em.fork();
  const row = await em.findOneOrFail(SubscriptionSchema, { id: sub.state.subscriptionId });
  const dueAt = Date.now() + margin;
  const ids = Array.from({ length: due }, (_, i) => idFromSeed('sub', `bench:${sub.state.subscriptionId}:${i}`));
  log(`subscriptions: writing ${due} subscriptions due at ${iso(dueAt)}…`);
  await em.insertMany(
    SubscriptionSchema,
    ids.map((id) => ({ ...row, id, planKey: id, originTransactionId: id, lastStepKey: `${id}:creation` })),
  );
  const dueState = (id: string): SubscriptionState => ({
    ...sub.state,
    subscriptionId: id,
    anchorAt: iso(dueAt - DAY),
    nextDueIndex: 1,
    periodStart: iso(dueAt - DAY),
    periodEnd: iso(dueAt),
  });
  await inBatches(due, 50, (i) => start(dueState(ids[i])));
  const startedInTime = Date.now() < dueAt;
  log(`subscriptions: ${due} workflows asleep (${startedInTime ? 'before' : 'AFTER'} the due instant); waiting…`);
  const renewedCount = () =>
    stack()
      .orm.em.fork()
      .count(SubscriptionSchema, { id: { $in: ids }, cyclesCompleted: { $gte: 2 } });
  // The window starts at the due instant: the starts before it are not the renewals' work.
  if (Date.now() < dueAt) await sleep(dueAt - Date.now());
  const profiling = await startRenewalProfile(undefined, options.workerPids);
  hooks.onDue?.();
  let renewed = 0;
  while (renewed < due) {
    await sleep(250);
    renewed = await renewedCount();
    await profiling.sample();
  }
  const renewalSeconds = (Date.now() - Math.max(dueAt, 0)) / 1000;
  const profile = await profiling.finish(due);
  log(`subscriptions: ${due} renewed in ${renewalSeconds.toFixed(1)} s; reading a sample of their histories…`);
  const timings = await historyTimings(
    ids.map((id) => subscriptionWorkflowId(id)),
    dueAt,
    envInt('BENCH_SUB_HISTORIES', 100, 0),
  ).catch((error: unknown) => (log(`subscriptions: histories not read: ${String(error)}`), null));
  await inBatches(due, 50, (i) => terminate(ids[i]));

  // Sleeping workflows need no row: they read nothing until they wake, a month from now.
  const memory: SubscriptionBenchResult['memory'] = [];
  const sample = (started: number) => {
    global.gc?.();
    const usage = process.memoryUsage();
    memory.push({ started, rssMiB: usage.rss / 2 ** 20, heapMiB: usage.heapUsed / 2 ** 20 });
  };
  sample(0);
  // Every 1,000 (memory per cached workflow, and where the sticky cache caps it); small runs by quarters.
  const step = sleeping >= 4000 ? 1000 : Math.ceil(sleeping / 4);
  const sleeper = (i: number): SubscriptionState => ({
    ...sub.state,
    subscriptionId: `sub_benchsleep${i}`,
    anchorAt: iso(Date.now()),
    nextDueIndex: 1,
    billingCycle: 'monthly',
  });
  for (let done = 0; done < sleeping; done += step) {
    const count = Math.min(step, sleeping - done);
    await inBatches(count, 100, (k) => start(sleeper(done + k)));
    await sleep(5_000); // let the worker run their first tasks
    sample(done + count);
    log(`subscriptions: ${done + count} sleeping workflows, rss ${memory.at(-1)!.rssMiB.toFixed(0)} MiB`);
  }
  await inBatches(sleeping, 100, (i) => terminate(`sub_benchsleep${i}`));
  return {
    due,
    renewalSeconds,
    renewalsPerSecond: due / renewalSeconds,
    startedInTime,
    sleeping,
    memory,
    profile,
    timings,
  };
}

export function subscriptionReport(result: SubscriptionBenchResult): { text: string[]; markdown: string[] } {
  const renewals =
    `Subscription renewals: ${result.due} due at the same instant renewed in ${result.renewalSeconds.toFixed(1)} s ` +
    `= ${result.renewalsPerSecond.toFixed(1)} renewals/s (each a charge-cascade child + sandbox charge)` +
    (result.startedInTime ? '' : ' — WARNING: the starts overran the due instant');
  const header = ['Sleeping subscription workflows', 'RSS (MiB)', 'Heap used (MiB)'];
  const lines = result.memory.map((m) => [String(m.started), m.rssMiB.toFixed(0), m.heapMiB.toFixed(0)]);
  const md = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const profile = renewalProfileReport(result.profile, result.timings);
  const memoryTable = lines.length > 1 ? [md(header), md(['---:', '---:', '---:']), ...lines.map(md)] : [];
  return {
    text: [renewals, ...profile.text, ...(lines.length > 1 ? [header, ...lines].map((cells) => cells.join('  ')) : [])],
    markdown: [`- ${renewals}`, ...profile.markdown, '', ...memoryTable],
  };
}

/*
 * The renewal scale-out figure, on the full Temporal server on PostgreSQL: the same burst of BENCH_SUB_DUE renewals,
 * first with one worker process, then with two, each worker in a process of its own (bench/renewal-worker.ts) and the
 * stack's in-process worker stopped meanwhile. Per phase: renewals/s and CPU per renewal (every process, the workers
 * included); then the factor, two workers' renewals/s over one's. On a 2-core machine the cores bound the factor, not
 * the design: a second worker can only take CPU the first one was not getting.
 */
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

/**
 * Go's CPU profile of the Temporal server over `seconds` (its net/http/pprof), summarised by `go tool pprof -top`
 * (flat, then cumulative): where the server's own CPU goes during the renewals.
 */
async function goProfile(pprofPort: number, seconds: number, log: (message: string) => void): Promise<string[]> {
  const response = await fetch(`http://127.0.0.1:${pprofPort}/debug/pprof/profile?seconds=${seconds}`);
  if (!response.ok) throw new Error(`pprof answered ${response.status}`);
  const file = path.join(os.tmpdir(), `switchyard-temporal-renewals-${Date.now()}.pprof`);
  fs.writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  log(`subscriptions: the Temporal server's CPU profile is in ${file}`);
  const top = async (...flags: string[]) =>
    (await promisify(execFile)('go', ['tool', 'pprof', '-top', '-nodecount=25', ...flags, file])).stdout;
  return [`Temporal server CPU profile (${seconds} s during the renewals, ${file}):`, await top(), await top('-cum')];
}

if (require.main === module) {
  void (async () => {
    const { startStack, stopStack } = await import('../test/helpers/stack');
    const { startTemporalOnPostgres } = await import('../scripts/lib/temporal-postgres-server');
    const { freePort } = await import('../test/helpers/ports');
    const { installBenchRuntime } = await import('./worker-metrics');
    const { machine } = await import('./report');
    process.env.LOG_LEVEL = 'silent';
    const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
    await installBenchRuntime();
    const onPostgres = process.env.BENCH_TEMPORAL === 'postgres';
    const pprofPort = onPostgres ? await freePort() : undefined;
    await startStack(onPostgres ? { startTemporal: () => startTemporalOnPostgres({ pprofPort }) } : {});
    try {
      let profile: Promise<string[]> | undefined;
      const seconds = envInt('BENCH_PPROF_SECONDS', 20, 0);
      const hooks = {
        onDue: () => {
          if (pprofPort && seconds > 0) {
            profile = goProfile(pprofPort, seconds, log).catch((error: unknown) => [`no Go profile: ${String(error)}`]);
          }
        },
      };
      // On the full server: the scale-out phases (one worker process, then two); on the dev server, in-process.
      const inProcess = onPostgres ? null : subscriptionReport(await measureSubscriptions(log, hooks));
      const report = inProcess
        ? [...inProcess.text, '', ...inProcess.markdown]
        : scaleOutReport(await measureScaleOut(log, hooks));
      const temporalServer = onPostgres
        ? 'Temporal: full server 1.29.1 on PostgreSQL (as docker-compose; no eager activities)'
        : 'Temporal: dev server (SQLite in memory, eager activities)';
      process.stdout.write([...machine(), temporalServer, ...report, '', ...((await profile) ?? []), ''].join('\n'));
    } catch (error) {
      console.error(error);
    } finally {
      await stopStack();
      process.exit(0);
    }
  })();
}
