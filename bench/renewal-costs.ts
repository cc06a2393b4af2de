/**
 * `npx tsx bench/renewal-costs.ts [count]`: what one subscription renewal costs, COUNTED rather than timed (the
 * counts do not depend on how busy the machine is). It renews `count` subscriptions (default 20) at one test-clock
 * instant (bench/test-clocks.ts, the same path as the bench) and reports per renewal:
 * - the SQL statements sent by this process (API, worker and outbox listener share the pg driver), as in
 *   bench/charge-statements.ts;
 * - from the Temporal histories of the subscription workflow (from the clock's signal on) and of its charge child:
 *   workflow tasks, regular activities by type, local activities, child workflows, signals sent and received,
 *   timers; and the same for the clock's advance workflow, divided by the subscriptions it moved.
 * Not part of `npm run bench`: a probe for the "Renewal cost breakdown (counts)" section of docs/benchmarks.md.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { testClockAdvanceWorkflowId } from '../workflows/lib/test-clock-signals';
import { subscriptionWorkflowId } from '../workflows/subscription.shared';
import { measureTestClockAdvance } from './test-clocks';
import { tapStatements } from './statement-tap';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const seen: string[] = [];
let recording = false;
/** Records a statement while recording; the bench's own poll for the clock's readiness is not the renewal's. */
function record(_connection: object, sql: string): void {
  if (recording && !sql.startsWith('select status from test_clocks')) seen.push(sql);
}

const tally = new Map<string, number>();
const add = (what: string, n = 1) => tally.set(what, (tally.get(what) ?? 0) + n);

async function history(workflowId: string): Promise<HistoryEvent[]> {
  const fetched = await stack().api.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  return fetched.events ?? [];
}

/** Adds one history's events to the tally under `who`; returns the charge children it started. */
function count(who: string, events: HistoryEvent[]): string[] {
  const T = temporal.api.enums.v1.EventType;
  const children: string[] = [];
  for (const event of events) {
    switch (event.eventType) {
      case T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        add(`${who}: workflow tasks`);
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        add(`${who}: activity ${event.activityTaskScheduledEventAttributes?.activityType?.name}`);
        break;
      case T.EVENT_TYPE_MARKER_RECORDED:
        // A local activity's result, or a patch marker (patched(): once per run, no database work).
        add(
          `${who}: ${event.markerRecordedEventAttributes?.markerName === 'core_patch' ? 'patch markers' : 'local activities'}`,
        );
        break;
      case T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED: {
        const id = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? '';
        add(`${who}: child workflow ${event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name}`);
        children.push(id);
        break;
      }
      case T.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
        add(`${who}: signals sent`);
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        add(`${who}: signals received`);
        break;
      case T.EVENT_TYPE_TIMER_STARTED:
        add(`${who}: timers`);
        break;
      case T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
        add(`${who}: search attribute upserts`);
        break;
    }
    add(`${who}: history events`);
  }
  return children;
}

async function main(): Promise<void> {
  const subscriptions = Number(process.argv[2] ?? 20);
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await startStack();
  tapStatements(record);
  try {
    let clock: { id: string; frozenTime: string } | undefined;
    const result = await measureTestClockAdvance(subscriptions, (m) => process.stderr.write(`[probe] ${m}\n`), {
      recording: (on) => (recording = on),
      keepWorkflows: true,
      onClock: (id, frozenTime) => (clock = { id, frozenTime }),
    });
    if (result.renewed !== subscriptions) throw new Error(`only ${result.renewed} of ${subscriptions} renewed`);
    const T = temporal.api.enums.v1.EventType;
    for (const id of result.ids) {
      const events = await history(subscriptionWorkflowId(id));
      // From the clock's signal on: the workflow's own start is not part of the renewal.
      const from = events.findIndex((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
      for (const child of count('subscription workflow', events.slice(from))) {
        count('charge workflow (child)', await history(child));
      }
    }
    count('clock advance workflow', await history(testClockAdvanceWorkflowId(clock!.id, clock!.frozenTime)));
    const per = (n: number) => (n / subscriptions).toFixed(2);
    const begins = seen.filter((sql) => /^(begin|start transaction)/i.test(sql)).length;
    const byTable = new Map<string, number>();
    for (const sql of seen) {
      const table = /\b(?:from|into|update)\s+"?([a-z_]+)"?/i.exec(sql)?.[1] ?? sql.split(' ')[0].toLowerCase();
      byTable.set(table, (byTable.get(table) ?? 0) + 1);
    }
    const out = [
      `${subscriptions} renewals at one test-clock instant (${result.seconds.toFixed(1)} s, not a throughput figure)`,
      `SQL statements per renewal: ${per(seen.length)} (${per(begins)} transactions)`,
      ...[...byTable].sort((a, b) => b[1] - a[1]).map(([table, n]) => `  ${per(n).padStart(6)}  ${table}`),
      'Temporal, per renewal:',
      ...[...tally].sort().map(([what, n]) => `  ${per(n).padStart(6)}  ${what}`),
    ];
    if (process.argv.includes('--list')) out.push(...seen.slice(0, Math.ceil(seen.length / subscriptions)));
    process.stdout.write(`${out.join('\n')}\n`);
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
