/**
 * Subscription billing for `npm run bench` (issue 13), on the same in-process stack (worker included):
 * - renewals per second: BENCH_SUB_DUE subscriptions (default 1000) whose renewal falls due at the same instant,
 *   each a real renewal (charge-cascade child, sandbox PSP, read-model step); measured from that instant until the
 *   last one has advanced its period;
 * - worker memory with BENCH_SUB_SLEEPING (default 10,000) subscription workflows asleep until a renewal a month
 *   away: the process's RSS and heap after every 1,000 (each quarter in smaller runs) of them has started (goal: flat — the workflow cache
 *   evicts, nothing is held per sleeping subscription).
 * Runs alone with `npx tsx bench/subscriptions.ts` (starts and stops its own stack).
 */
import { SubscriptionSchema } from '../db/entities';
import { TASK_QUEUES } from '../workflows/definitions';
import { subscriptionWorkflow, subscriptionWorkflowId } from '../workflows/subscription';
import type { SubscriptionState } from '../workflows/lib/subscription-state';
import { idFromSeed } from '../domain/platform/ids';
import { stack } from '../test/helpers/stack';
import { subscribed } from '../test/helpers/subscriptions';

const DAY = 86_400_000;

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
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

export async function measureSubscriptions(log: (message: string) => void): Promise<SubscriptionBenchResult> {
  const due = envInt('BENCH_SUB_DUE', 1000);
  const sleeping = envInt('BENCH_SUB_SLEEPING', 10_000);
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
  let renewed = 0;
  while (renewed < due) {
    await sleep(250);
    renewed = await renewedCount();
  }
  const renewalSeconds = (Date.now() - Math.max(dueAt, 0)) / 1000;
  await inBatches(due, 50, (i) => terminate(ids[i]));

  // Sleeping workflows need no row: they read nothing until they wake, a month from now.
  const memory: SubscriptionBenchResult['memory'] = [];
  const sample = (started: number) => {
    global.gc?.();
    const usage = process.memoryUsage();
    memory.push({ started, rssMiB: usage.rss / 2 ** 20, heapMiB: usage.heapUsed / 2 ** 20 });
  };
  sample(0);
  // Every 1,000 (issue 28: memory per cached workflow, and where the sticky cache caps it); small runs by quarters.
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
  return { due, renewalSeconds, renewalsPerSecond: due / renewalSeconds, startedInTime, sleeping, memory };
}

export function subscriptionReport(result: SubscriptionBenchResult): { text: string[]; markdown: string[] } {
  const renewals =
    `Subscription renewals: ${result.due} due at the same instant renewed in ${result.renewalSeconds.toFixed(1)} s ` +
    `= ${result.renewalsPerSecond.toFixed(1)} renewals/s (each a charge-cascade child + sandbox charge)` +
    (result.startedInTime ? '' : ' — WARNING: the starts overran the due instant');
  const header = ['Sleeping subscription workflows', 'RSS (MiB)', 'Heap used (MiB)'];
  const lines = result.memory.map((m) => [String(m.started), m.rssMiB.toFixed(0), m.heapMiB.toFixed(0)]);
  const md = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return {
    text: [renewals, ...[header, ...lines].map((cells) => cells.join('  '))],
    markdown: [`- ${renewals}`, '', md(header), md(['---:', '---:', '---:']), ...lines.map(md)],
  };
}

if (require.main === module) {
  void (async () => {
    const { startStack, stopStack } = await import('../test/helpers/stack');
    process.env.LOG_LEVEL = 'silent';
    await startStack();
    try {
      const report = subscriptionReport(await measureSubscriptions((m) => process.stderr.write(`[bench] ${m}\n`)));
      process.stdout.write([...report.text, '', ...report.markdown, ''].join('\n'));
    } catch (error) {
      console.error(error);
    } finally {
      await stopStack();
      process.exit(0);
    }
  })();
}
