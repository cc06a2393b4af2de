/**
 * Test clocks for `npm run bench`: one advance of a clock with BENCH_CLOCK_SUBS subscriptions (default
 * 1000, --quick 100) whose renewal falls due at the same clock instant — renewals per second (goal ≥ 100/s at
 * 1000), measured from POST /test-clocks/:id/advance until GET says the clock is ready again. Each renewal is real:
 * the advance workflow signals every subscription workflow, each charges through a charge-cascade child at the
 * sandbox, writes its step and reports idle.
 * Around the advance, what limits it (bench/renewal-profile.ts): CPU per renewal and utilisation per process, the
 * bench process by thread, the machine's load, the worker's metrics and a sample of the renewals' histories.
 * Runs alone with `npx tsx bench/test-clocks.ts` (starts and stops its own stack).
 */
import { SubscriptionSchema } from '../db/entities';
import { idFromSeed } from '../domain/platform/ids';
import { TASK_QUEUES } from '../workflows/definitions';
import { subscriptionWorkflow } from '../workflows/subscription';
import { subscriptionWorkflowId, viewQuery } from '../workflows/subscription.shared';
import type { SubscriptionState } from '../workflows/lib/subscription-state';
import { api } from '../test/helpers/http';
import { sellableOffer } from '../test/helpers/checkout';
import { createTenant } from '../test/helpers/factories';
import { stack } from '../test/helpers/stack';
import { createClock, subscribeOnClock } from '../test/helpers/test-clocks';
import { cascade } from '../test/helpers/transactions';
import type { Suite } from './harness';
import {
  historyTimings,
  renewalProfileReport,
  startRenewalProfile,
  type HistoryTimings,
  type RenewalProfile,
} from './renewal-profile';

const T0 = '2027-01-31T10:00:00.000Z';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` over 0..count-1, `concurrency` at a time. */
async function inBatches(count: number, concurrency: number, work: (i: number) => Promise<unknown>) {
  for (let start = 0; start < count; start += concurrency) {
    await Promise.all(Array.from({ length: Math.min(concurrency, count - start) }, (_, k) => work(start + k)));
  }
}

export interface TestClockBenchResult {
  subscriptions: number;
  seconds: number;
  renewalsPerSecond: number;
  /** Subscriptions that completed their second cycle in the advance (must equal `subscriptions`). */
  renewed: number;
  /** Every subscription of the clock. */
  ids: string[];
  /** What the advance cost and where it waited. */
  profile: RenewalProfile;
  timings: HistoryTimings | null;
}

/** For bench/renewal-costs.ts: counting around the advance, and the workflows kept to read their histories. */
export interface AdvanceProbe {
  recording(on: boolean): void;
  keepWorkflows: boolean;
  onClock(clockId: string, frozenTime: string): void;
}

export async function measureTestClockAdvance(
  subscriptions: number,
  log: (message: string) => void,
  probe?: AdvanceProbe,
): Promise<TestClockBenchResult> {
  const tenant = await createTenant();
  await cascade(tenant, ['provider_a']);
  const clock = await createClock(tenant, T0);
  const { offer } = await sellableOffer(tenant); // monthly
  // One real subscription on the clock (a real first charge); the others are copies of its row and workflow state
  // under their own ids, so every renewal is a real, separate charge of the same saved card, all due at once.
  const { sub } = await subscribeOnClock(tenant, clock.id, offer.id);
  const client = stack().api.deps.temporal.client;
  const original = await client.workflow.getHandle(subscriptionWorkflowId(sub.id)).query(viewQuery);
  const em = stack().orm.em.fork();
  const row = await em.findOneOrFail(SubscriptionSchema, { id: sub.id });
  const ids = Array.from({ length: subscriptions - 1 }, (_, i) => idFromSeed('sub', `bench-clock:${sub.id}:${i}`));
  log(`test clocks: writing ${subscriptions} subscriptions on ${clock.id}, due at ${sub.next_billing_at}…`);
  await em.insertMany(
    SubscriptionSchema,
    ids.map((id) => ({ ...row, id, planKey: id, originTransactionId: id, lastStepKey: `${id}:creation` })),
  );
  const state = (id: string): SubscriptionState => ({ ...original.state, subscriptionId: id });
  await inBatches(ids.length, 50, (i) =>
    client.workflow.start(subscriptionWorkflow, {
      workflowId: subscriptionWorkflowId(ids[i]),
      // Where a clock's subscriptions run (as the first one's charge started it).
      taskQueue: TASK_QUEUES.testClocks,
      args: [{ state: state(ids[i]) }],
    }),
  );

  log(`test clocks: advancing ${clock.id} to ${sub.next_billing_at}…`);
  const key = tenant.merchant_secret_key;
  probe?.onClock(clock.id, sub.next_billing_at);
  probe?.recording(true);
  const profiling = await startRenewalProfile(TASK_QUEUES.testClocks);
  const started = Date.now();
  const asked = await api.post(`/test-clocks/${clock.id}/advance`, { key, body: { frozen_time: sub.next_billing_at } });
  if (asked.status !== 200) throw new Error(`advance answered ${asked.status}: ${asked.text}`);
  // Ready is read from the row, not through GET: polling would spend the key's rate limit and measure the 429s.
  const status = async () =>
    (
      await stack()
        .orm.em.fork()
        .execute<Array<{ status: string }>>('select status from test_clocks where id = ?', [clock.id])
    )[0].status;
  while ((await status()) !== 'ready') {
    await sleep(100);
    await profiling.sample();
  }
  const seconds = (Date.now() - started) / 1000;
  const profile = await profiling.finish(subscriptions);
  probe?.recording(false);
  const all = [sub.id, ...ids];
  const renewed = await stack()
    .orm.em.fork()
    .count(SubscriptionSchema, { id: { $in: all }, cyclesCompleted: { $gte: 2 } });
  const measured = { subscriptions, seconds, renewalsPerSecond: subscriptions / seconds, renewed, ids: all, profile };
  if (probe?.keepWorkflows) return { ...measured, timings: null };
  const timings = await historyTimings(
    all.map((id) => subscriptionWorkflowId(id)),
    started,
    Math.min(100, all.length),
  ).catch((error: unknown) => (log(`test clocks: histories not read: ${String(error)}`), null));
  await inBatches(all.length, 50, (i) =>
    client.workflow
      .getHandle(subscriptionWorkflowId(all[i]))
      .terminate('bench done')
      .catch(() => undefined),
  );
  return { ...measured, timings };
}

export function testClockReport(result: TestClockBenchResult): { text: string[]; markdown: string[] } {
  const line =
    `Test clock advance: ${result.subscriptions} subscriptions due at the same clock instant renewed in ` +
    `${result.seconds.toFixed(1)} s = ${result.renewalsPerSecond.toFixed(1)} renewals/s (goal ≥ 100/s at 1000; ` +
    `each a signal, a charge-cascade child + sandbox charge, and an idle report)` +
    (result.renewed === result.subscriptions
      ? ''
      : ` — WARNING: only ${result.renewed} of ${result.subscriptions} renewed`);
  const profile = renewalProfileReport(result.profile, result.timings);
  return { text: [line, ...profile.text], markdown: [`- ${line}`, ...profile.markdown] };
}

export function subscriptionCount(quick: boolean): number {
  const value = Number(process.env.BENCH_CLOCK_SUBS ?? (quick ? 100 : 1000));
  if (!Number.isInteger(value) || value < 1) throw new Error('BENCH_CLOCK_SUBS must be a positive integer');
  return value;
}

export const testClocksSuite: Suite = {
  name: 'test clock advance',
  async run(ctx) {
    const result = await measureTestClockAdvance(subscriptionCount(ctx.quick), ctx.log);
    const report = testClockReport(result);
    return {
      ...report,
      figures: { 'test_clock_advance.renewals_per_second': result.renewalsPerSecond },
      problems: result.renewed === result.subscriptions ? [] : [`test clock: ${result.renewed} renewed`],
    };
  },
};

if (require.main === module) {
  void (async () => {
    const { startStack, stopStack } = await import('../test/helpers/stack');
    const { installBenchRuntime } = await import('./worker-metrics');
    process.env.LOG_LEVEL = 'silent';
    await installBenchRuntime();
    await startStack();
    try {
      const result = await measureTestClockAdvance(subscriptionCount(false), (m) =>
        process.stderr.write(`[bench] ${m}\n`),
      );
      const report = testClockReport(result);
      process.stdout.write([...report.text, '', ...report.markdown, ''].join('\n'));
    } catch (error) {
      console.error(error);
    } finally {
      await stopStack();
      process.exit(0);
    }
  })();
}
