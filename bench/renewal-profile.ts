/**
 * What limits renewals, measured around a renewal window by bench/subscriptions.ts and
 * bench/test-clocks.ts rather than estimated from counts:
 * - CPU per renewal and utilisation (CPU seconds / wall seconds) of each process (bench/process-cpu.ts): a process
 *   near 1.0 is using a whole core; all of them near the machine's cores means CPU is what runs out;
 * - the bench process thread by thread: its main thread runs the API (in-process), every activity, the ORM and the
 *   sandbox PSP on one event loop, so that thread near 1.0 is a serialization in our process;
 * - the machine's own busy time in the window (other runs on this shared machine included), and its load average;
 * - the worker's view (bench/worker-metrics.ts, when the runtime exports it): polls that came back empty, slots
 *   left, schedule-to-start — whether tasks wait on the server or on the worker;
 * - the histories of a sample of renewals: per renewal, time its workflow tasks and activities waited in a task
 *   queue (scheduled → started) and ran (started → completed), and workflow tasks that missed the sticky cache.
 */
import fs from 'node:fs';
import os from 'node:os';
import { temporal } from '@temporalio/proto';
import { tsToMs } from '@temporalio/common/lib/time';
import { stack } from '../test/helpers/stack';
import { TASK_QUEUES } from '../workflows/definitions';
import { cpuPer, cpuSnapshot, machineSnapshot, threadSnapshot, type Role } from './process-cpu';
import { delta, scrapeWorkerMetrics, windowMean, type MetricTotals } from './worker-metrics';

/** Workers in processes of their own (measureScaleOut in bench/subscriptions.ts): their CPU, apart from the bench process's. */
type ProfileRole = Role | 'worker processes';
const ROLES: ProfileRole[] = [
  'bench process',
  'worker processes',
  'temporal server',
  'temporal postgresql',
  'postgresql',
  'api process',
];
const SLOT_KINDS = ['WorkflowWorker', 'ActivityWorker', 'LocalActivityWorker'] as const;

export interface RenewalProfile {
  renewals: number;
  wallSeconds: number;
  /** CPU ms per renewal by process, and in all. */
  cpuMsPerRenewal: Record<ProfileRole | 'all', number>;
  /** CPU seconds per wall second (1.0 = one whole core) by process, and in all. */
  utilisation: Record<ProfileRole | 'all', number>;
  /** The bench process's busiest threads, utilisation each. */
  threads: Array<{ tid: number; name: string; main: boolean; utilisation: number }>;
  machine: { cores: number; busyCores: number; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
  worker: WorkerView | null;
}

export interface WorkerView {
  workflowTaskScheduleToStartMs: number | null;
  workflowTaskExecutionMs: number | null;
  activityScheduleToStartMs: number | null;
  activityExecutionMs: number | null;
  workflowPollsSucceeded: number;
  workflowPollsEmpty: number;
  activityPollsEmpty: number;
  stickyCacheHits: number;
  stickyCacheMisses: number;
  stickyCacheForcedEvictions: number;
  /** Fewest free slots seen in the samples, per slot kind (0: the worker had all of them busy at some point). */
  minSlotsAvailable: Partial<Record<(typeof SLOT_KINDS)[number], number>>;
  samples: number;
}

/** utime + stime of each process (all its threads), in ms; a worker process has no children of its own. */
function cpuOfProcesses(pids: number[]): number {
  let ms = 0;
  for (const pid of pids) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ms += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ
  }
  return ms;
}

/**
 * Starts measuring now; `sample()` while waiting (slots), `finish(renewals)` when the window ends. `queue`: where the
 * renewals run (a test clock's run on the test-clock queue). `workerPids`: workers in processes of their own, the
 * bench process's own worker stopped (their metrics are not scraped: the worker's view is left out).
 */
export async function startRenewalProfile(queue: string = TASK_QUEUES.payments, workerPids: number[] = []) {
  const loadAverageAtStart = os.loadavg();
  const metricsBefore = workerPids.length ? null : await scrapeWorkerMetrics(queue);
  const started = performance.now();
  const cpuBefore = cpuSnapshot();
  const workersBefore = cpuOfProcesses(workerPids);
  const threadsBefore = threadSnapshot();
  const machineBefore = machineSnapshot();
  const minSlots: WorkerView['minSlotsAvailable'] = {};
  let samples = 0;
  return {
    async sample(): Promise<void> {
      const now = metricsBefore && (await scrapeWorkerMetrics(queue));
      if (!now) return;
      samples += 1;
      for (const kind of SLOT_KINDS) {
        const available = now.get(`temporal_worker_task_slots_available{${kind}}`);
        if (available !== undefined) minSlots[kind] = Math.min(minSlots[kind] ?? Infinity, available);
      }
    },
    async finish(renewals: number): Promise<RenewalProfile> {
      const cpuAfter = cpuSnapshot();
      const workersAfter = cpuOfProcesses(workerPids);
      const threadsAfter = threadSnapshot();
      const machineAfter = machineSnapshot();
      const wallSeconds = (performance.now() - started) / 1000;
      const metricsAfter = metricsBefore && (await scrapeWorkerMetrics(queue));
      const perRole = cpuPer(cpuBefore, cpuAfter, renewals);
      const workers = (workersAfter - workersBefore) / renewals;
      const cpuMsPerRenewal = { ...perRole, 'worker processes': workers, all: perRole.all + workers };
      const utilisation = Object.fromEntries(
        Object.entries(cpuMsPerRenewal).map(([role, ms]) => [role, (ms * renewals) / 1000 / wallSeconds]),
      ) as RenewalProfile['utilisation'];
      const threads = [...threadsAfter]
        .map(([tid, { name, cpuMs }]) => ({
          tid,
          name,
          main: tid === process.pid,
          utilisation: (cpuMs - (threadsBefore.get(tid)?.cpuMs ?? 0)) / 1000 / wallSeconds,
        }))
        .filter((thread) => thread.main || thread.utilisation >= 0.02)
        .sort((a, b) => b.utilisation - a.utilisation)
        .slice(0, 8);
      const cores = os.cpus().length;
      const busyCores =
        ((machineAfter.busyMs - machineBefore.busyMs) / (machineAfter.totalMs - machineBefore.totalMs)) * cores;
      return {
        renewals,
        wallSeconds,
        cpuMsPerRenewal,
        utilisation,
        threads,
        machine: { cores, busyCores, loadAverageAtStart, loadAverageAtEnd: os.loadavg() },
        worker: metricsBefore && metricsAfter ? workerView(metricsBefore, metricsAfter, minSlots, samples) : null,
      };
    },
  };
}

function workerView(
  before: MetricTotals,
  after: MetricTotals,
  minSlotsAvailable: WorkerView['minSlotsAvailable'],
  samples: number,
): WorkerView {
  const d = (name: string) => delta(before, after, name);
  return {
    workflowTaskScheduleToStartMs: windowMean(before, after, 'temporal_workflow_task_schedule_to_start_latency'),
    workflowTaskExecutionMs: windowMean(before, after, 'temporal_workflow_task_execution_latency'),
    activityScheduleToStartMs: windowMean(before, after, 'temporal_activity_schedule_to_start_latency'),
    activityExecutionMs: windowMean(before, after, 'temporal_activity_execution_latency'),
    workflowPollsSucceeded: d('temporal_workflow_task_queue_poll_succeed'),
    workflowPollsEmpty: d('temporal_workflow_task_queue_poll_empty'),
    activityPollsEmpty: d('temporal_activity_poll_no_task'),
    stickyCacheHits: d('temporal_sticky_cache_hit'),
    stickyCacheMisses: d('temporal_sticky_cache_miss'),
    stickyCacheForcedEvictions: d('temporal_sticky_cache_total_forced_eviction'),
    minSlotsAvailable,
    samples,
  };
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Per renewal (the mean over the sample), in ms unless counted. */
export interface HistoryTimings {
  sampled: number;
  workflowTasks: number;
  workflowTaskQueuedMs: number;
  workflowTaskRunningMs: number;
  /** Workflow tasks scheduled on the normal queue, not the worker's sticky one (the child's first is always). */
  workflowTasksNotSticky: number;
  activities: number;
  activityQueuedMs: number;
  activityRunningMs: number;
  /** From the first event of the renewal to the last of the subscription workflow's renewal. */
  renewalSpanMs: number;
}

/**
 * Reads the histories of `sample` of the subscription workflows (spread over `ids`) from `fromMs` on, and of the
 * charge children they started then: where each renewal's time went, as the server recorded it.
 */
export async function historyTimings(workflowIds: string[], fromMs: number, sample = 100): Promise<HistoryTimings> {
  const client = stack().api.deps.temporal.client;
  const step = Math.max(1, Math.floor(workflowIds.length / sample));
  const picked = workflowIds.filter((_, i) => i % step === 0).slice(0, sample);
  const totals: HistoryTimings = {
    sampled: picked.length,
    workflowTasks: 0,
    workflowTaskQueuedMs: 0,
    workflowTaskRunningMs: 0,
    workflowTasksNotSticky: 0,
    activities: 0,
    activityQueuedMs: 0,
    activityRunningMs: 0,
    renewalSpanMs: 0,
  };
  const T = temporal.api.enums.v1.EventType;
  const history = async (id: string) => (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const at = (event: HistoryEvent) => tsToMs(event.eventTime);
  const add = (events: HistoryEvent[]): string[] => {
    const byId = new Map(events.map((event) => [Number(event.eventId), event]));
    const since = (id: unknown, event: HistoryEvent) => {
      const earlier = byId.get(Number(id));
      return earlier ? at(event) - at(earlier) : 0;
    };
    const children: string[] = [];
    for (const event of events) {
      switch (event.eventType) {
        case T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
          totals.workflowTasks += 1;
          if (
            event.workflowTaskScheduledEventAttributes?.taskQueue?.kind !==
            temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY
          )
            totals.workflowTasksNotSticky += 1;
          break;
        case T.EVENT_TYPE_WORKFLOW_TASK_STARTED:
          totals.workflowTaskQueuedMs += since(event.workflowTaskStartedEventAttributes?.scheduledEventId, event);
          break;
        case T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
          totals.workflowTaskRunningMs += since(event.workflowTaskCompletedEventAttributes?.startedEventId, event);
          break;
        case T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
          totals.activities += 1;
          break;
        case T.EVENT_TYPE_ACTIVITY_TASK_STARTED:
          totals.activityQueuedMs += since(event.activityTaskStartedEventAttributes?.scheduledEventId, event);
          break;
        case T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
          totals.activityRunningMs += since(event.activityTaskCompletedEventAttributes?.startedEventId, event);
          break;
        case T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
          children.push(event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? '');
          break;
      }
    }
    return children;
  };
  for (const id of picked) {
    const all = await history(id);
    // The renewal's events: from the window's start on, up to the workflow task that set the next period's timer
    // (the workflow goes back to sleep; the terminate that ends the bench is not the renewal's).
    const events = all.filter(
      (event) => at(event) >= fromMs && event.eventType !== T.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
    );
    if (events.length === 0) continue;
    totals.renewalSpanMs += at(events.at(-1)!) - at(events[0]);
    for (const child of add(events)) if (child) add(await history(child));
  }
  const n = Math.max(1, picked.length);
  for (const key of Object.keys(totals) as Array<keyof HistoryTimings>) if (key !== 'sampled') totals[key] /= n;
  return totals;
}

export function renewalProfileReport(
  profile: RenewalProfile,
  timings: HistoryTimings | null,
): { text: string[]; markdown: string[] } {
  const f = (n: number | null | undefined, digits = 1) => (n === null || n === undefined ? '—' : n.toFixed(digits));
  const rows: Array<[string, string]> = [];
  const { machine } = profile;
  rows.push([
    'machine during the window',
    `${f(machine.busyCores, 2)} of ${machine.cores} cores busy (every process on the machine); load average ` +
      `${machine.loadAverageAtStart.map((l) => l.toFixed(2)).join(' ')} at the start, ` +
      `${machine.loadAverageAtEnd.map((l) => l.toFixed(2)).join(' ')} at the end`,
  ]);
  for (const role of [...ROLES, 'all'] as const) {
    if (role !== 'all' && profile.cpuMsPerRenewal[role] === 0) continue;
    rows.push([
      `CPU per renewal, ${role}`,
      `${f(profile.cpuMsPerRenewal[role])} ms (utilisation ${f(profile.utilisation[role], 2)} cores)`,
    ]);
  }
  for (const thread of profile.threads) {
    rows.push([
      `bench process thread ${thread.tid} (${thread.name}${thread.main ? ', main: API, activities, ORM, sandbox' : ''})`,
      `utilisation ${f(thread.utilisation, 2)}`,
    ]);
  }
  const w = profile.worker;
  if (w) {
    rows.push(
      [
        'worker: workflow task schedule-to-start / execution, mean',
        `${f(w.workflowTaskScheduleToStartMs)} / ${f(w.workflowTaskExecutionMs)} ms`,
      ],
      [
        'worker: activity schedule-to-start / execution, mean',
        `${f(w.activityScheduleToStartMs)} / ${f(w.activityExecutionMs)} ms`,
      ],
      [
        'worker: workflow task polls succeeded / empty; activity polls empty',
        `${w.workflowPollsSucceeded} / ${w.workflowPollsEmpty}; ${w.activityPollsEmpty}`,
      ],
      [
        'worker: sticky cache hits / misses / forced evictions',
        `${w.stickyCacheHits} / ${w.stickyCacheMisses} / ${w.stickyCacheForcedEvictions}`,
      ],
      [
        `worker: fewest free slots seen (${w.samples} samples)`,
        Object.entries(w.minSlotsAvailable)
          .map(([kind, n]) => `${kind} ${n}`)
          .join(', ') || '—',
      ],
    );
  }
  if (timings) {
    rows.push(
      [
        `histories (${timings.sampled} renewals): workflow tasks per renewal, not on the sticky queue`,
        `${f(timings.workflowTasks)}, ${f(timings.workflowTasksNotSticky)}`,
      ],
      [
        'histories: workflow tasks queued (scheduled → started) / running (started → completed), ms per renewal',
        `${f(timings.workflowTaskQueuedMs, 0)} / ${f(timings.workflowTaskRunningMs, 0)}`,
      ],
      [
        'histories: activities per renewal, queued / running, ms per renewal',
        `${f(timings.activities)}, ${f(timings.activityQueuedMs, 0)} / ${f(timings.activityRunningMs, 0)}`,
      ],
      ['histories: a renewal from its first event to its last, mean', `${f(timings.renewalSpanMs, 0)} ms`],
    );
  }
  return {
    text: rows.map(([what, value]) => `  ${what}: ${value}`),
    markdown: [
      '',
      '| renewal window | measured |',
      '|---|---|',
      ...rows.map(([what, value]) => `| ${what} | ${value} |`),
    ],
  };
}
