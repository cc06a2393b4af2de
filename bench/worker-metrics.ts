/**
 * The Temporal worker's own view of a measurement (do renewals wait on the server or on our worker?):
 * the SDK's Prometheus metrics, exported on a free local port when the bench installs the Temporal runtime with
 * `installBenchRuntime()` (once per process, before any worker starts). Without it every reading is null and the
 * bench reports no worker rows; nothing else changes.
 *
 * What tells the two apart: a worker that waits on the server polls and comes back empty
 * (`workflow_task_queue_poll_empty`) while its slots stay free; a worker that is the bottleneck has its slots used
 * up and never polls empty, while tasks queue for it (schedule-to-start).
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { freePort } from '../test/helpers/ports';

let metricsUrl: string | undefined;

/** Runtime.install with the WARN logger the bench uses and the SDK's metrics on a free port. */
export async function installBenchRuntime(): Promise<void> {
  const port = await freePort();
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}` } } },
  });
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
}

/** One scrape: the sum over label sets of every series, by name, for the payments task queue's series or all. */
export type MetricTotals = Map<string, number>;

export async function scrapeWorkerMetrics(taskQueue?: string): Promise<MetricTotals | null> {
  if (!metricsUrl) return null;
  const response = await fetch(metricsUrl).catch(() => null);
  if (!response?.ok) return null;
  const totals: MetricTotals = new Map();
  for (const line of (await response.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const [, name, labels = '', value] = match;
    // Histogram buckets are not needed (means come from _sum/_count); the task queue filter keeps other queues out.
    if (name.endsWith('_bucket')) continue;
    if (taskQueue && labels.includes('task_queue=') && !labels.includes(`task_queue="${taskQueue}"`)) continue;
    const key = /worker_type="(\w+)"/.test(labels) ? `${name}{${/worker_type="(\w+)"/.exec(labels)![1]}}` : name;
    const poller = /poller_type="(\w+)"/.exec(labels);
    const fullKey = poller ? `${key}{${poller[1]}}` : key;
    totals.set(fullKey, (totals.get(fullKey) ?? 0) + Number(value));
  }
  return totals;
}

/** The change of a counter or histogram _sum/_count between two scrapes (0 when absent). */
export const delta = (before: MetricTotals, after: MetricTotals, name: string): number =>
  (after.get(name) ?? 0) - (before.get(name) ?? 0);

/** Mean of a histogram over the window: Δsum / Δcount (null when nothing was recorded). */
export function windowMean(before: MetricTotals, after: MetricTotals, histogram: string): number | null {
  const count = delta(before, after, `${histogram}_count`);
  return count > 0 ? delta(before, after, `${histogram}_sum`) / count : null;
}
