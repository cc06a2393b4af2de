/**
 * The worker's telemetry: the interceptors every activity runs through and the worker's Prometheus endpoint.
 *
 * Traces (the worker's half; the API's is domain/platform/tracing.ts): the Temporal SDK's OpenTelemetry interceptors
 * continue the trace the API's workflow start carried in its headers — a span for the workflow run, one per activity
 * (the provider's HTTP call is a child of its activity's) — and workflow spans leave the sandbox through a sink.
 *
 * Metrics (WORKER_METRICS_PORT): what the activities count (domain/platform/metrics.ts), the gauges read from the
 * database at each scrape, and the Temporal SDK's own worker metrics (task slots, poll and schedule-to-start
 * latencies, sticky cache, failures), taken from the SDK's metrics buffer into the same registry. The activity
 * outcomes are counted by an interceptor, so no activity carries metrics code of its own.
 */
import type { Context } from '@temporalio/activity';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import {
  MetricsBuffer,
  Runtime,
  type ActivityInterceptors,
  type InjectedSinks,
  type RuntimeOptions,
} from '@temporalio/worker';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Orm } from '../db/orm';
import { readOperationalGauges } from '../db/repositories/operational-gauges.repository';
import type { Config } from '../domain/platform/config';
import {
  activityFailures,
  circuitState,
  renewalOutcomes,
  renewalsDue,
  unknownOutcomes,
  webhookBacklog,
  webhookDeliveries,
  workerMetrics,
} from '../domain/platform/metrics';
import { startMetricsServer, type RunningMetricsServer } from '../domain/platform/metrics-server';
import {
  temporalClientInterceptors,
  tracingRuns,
  workflowSpanProcessor,
  workflowSpanResource,
} from '../domain/platform/tracing';
import { UNRESOLVED_PROVIDER_CALL } from '../workflows/lib/transaction-types';

// ── Traces ───────────────────────────────────────────────────────────────────────────────────────────────────

/** Bundled with the workflows (bundleWorkflowCode's workflowInterceptorModules): the workflow-side interceptors. */
export const WORKFLOW_INTERCEPTOR_MODULES = [
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

/** An activity's span, continuing its workflow's trace; while this process records no span, no interceptor at all. */
export function activityTracingInterceptor(ctx: Context): ActivityInterceptors {
  if (!tracingRuns()) return {};
  return {
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  };
}

/**
 * The sink workflow spans leave the sandbox through (a no-op while tracing is off). The resource — the service name
 * — is read at each export, not when the Worker is made: a Worker started before tracing (the test stack's) still
 * exports its spans under the running tracing's service.
 */
export function workflowSpanSinks(): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => makeWorkflowExporter(workflowSpanProcessor, workflowSpanResource()).export.fn(info, spans),
      },
    },
  };
}

/** A Temporal client's interceptors: while tracing runs, its workflow starts and signals carry the active trace. */
export const tracingClientInterceptors = () => ({ workflow: temporalClientInterceptors });

// ── Metrics ──────────────────────────────────────────────────────────────────────────────────────────────────

const CIRCUIT_VALUE = { closed: 0, half_open: 1, open: 2 } as const;
const RENEWAL_OUTCOME: Record<string, string> = {
  paid: 'succeeded',
  declined: 'failed',
  unprocessed: 'failed',
  pending: 'pending',
  in_doubt: 'in_doubt',
};
const TEN_MINUTES_MS = 10 * 60 * 1000;

/** What an activity's result says about webhooks and renewals; every other activity counts only its failures. */
function countResult(activityType: string, result: unknown): void {
  const status = (result as { status?: string; outcome?: string } | null) ?? {};
  if (activityType === 'deliverWebhook' && status.outcome) webhookDeliveries.inc({ outcome: status.outcome });
  else if (activityType === 'prepareRenewal' && 'charge' in status) renewalsDue.inc();
  else if ((activityType === 'settleRenewal' || activityType === 'renewalOutcome') && status.status)
    renewalOutcomes.inc({ outcome: RENEWAL_OUTCOME[status.status] ?? 'other' });
}

/** The activity interceptor: results into their counters, failures with how long the activity has been retrying. */
export function activityMetricsInterceptor(ctx: Context): ActivityInterceptors {
  return {
    inbound: {
      async execute(input, next) {
        const { activityType, scheduledTimestampMs } = ctx.info;
        try {
          const result = await next(input);
          countResult(activityType, result);
          return result;
        } catch (error) {
          const retrying = Date.now() - scheduledTimestampMs > TEN_MINUTES_MS;
          activityFailures.inc({ activity_type: activityType, retrying_over_10m: String(retrying) });
          throw error;
        }
      },
    },
  };
}

async function refreshGauges(orm: Orm): Promise<void> {
  const gauges = await readOperationalGauges(orm.em.fork(), UNRESOLVED_PROVIDER_CALL);
  circuitState.reset();
  for (const circuit of gauges.circuits)
    circuitState.set({ provider: circuit.providerSlug, connector: circuit.connectorId }, CIRCUIT_VALUE[circuit.state]);
  webhookBacklog.set({ stage: 'fan_out' }, gauges.eventsAwaitingFanOut);
  webhookBacklog.set({ stage: 'retry' }, gauges.deliveriesAwaitingRetry);
  unknownOutcomes.set(gauges.unknownOutcomes);
}

/**
 * The Temporal SDK's metrics, buffered by its runtime and copied here into prom-client metrics of the same names
 * (created as each first appears, labelled by its attributes). The runtime is made once per process, by whatever
 * first touches Temporal's native side, so this installs it before that (npm start's dev server, the test hooks, the
 * worker's first connection); where something else already made it, the SDK's metrics are simply not exported.
 */
const temporalBuffer = new MetricsBuffer({ maxBufferSize: 100_000, useSecondsForDurations: true });
type BridgedMetric = Counter | Gauge | Histogram;
const bridged = new Map<string, BridgedMetric>();

export function installTemporalRuntime(options: Omit<RuntimeOptions, 'telemetryOptions'> = {}): void {
  if (Runtime._instance !== undefined) return;
  Runtime.install({ ...options, telemetryOptions: { metrics: { buffer: temporalBuffer } } });
  // Drained every second as well as at scrape: the buffer drops updates once full.
  setInterval(drainTemporalMetrics, 1000).unref();
}

function bridgedMetric(name: string, kind: string, labelNames: string[], help: string): BridgedMetric | undefined {
  const key = `${name}|${labelNames.join(',')}`;
  let metric = bridged.get(key);
  if (metric || bridged.has(name)) return metric;
  const options = { name, help: help || name, labelNames, registers: [workerMetrics] };
  metric =
    kind === 'counter' ? new Counter(options) : kind === 'histogram' ? new Histogram(options) : new Gauge(options);
  bridged.set(name, metric);
  bridged.set(key, metric);
  return metric;
}

function drainTemporalMetrics(): void {
  for (const update of temporalBuffer.retrieveUpdates()) {
    const labels = Object.fromEntries(Object.entries(update.attributes).map(([k, v]) => [k, String(v)]));
    const name = update.metric.name.replace(/[^a-zA-Z0-9_]/g, '_');
    // A metric seen later with another set of attributes than its first is skipped (prom-client fixes labels).
    const metric = bridgedMetric(name, update.metric.kind, Object.keys(labels).sort(), update.metric.description ?? '');
    if (!metric) continue;
    if (metric instanceof Counter) metric.inc(labels, update.value);
    else if (metric instanceof Histogram) metric.observe(labels, update.value);
    // An up-down counter's update is a delta, a gauge's the value itself.
    else if (update.metric.kind === 'up-down-counter') metric.inc(labels, update.value);
    else metric.set(labels, update.value);
  }
}

/** The worker's endpoint, or null when WORKER_METRICS_PORT is off. */
export async function startWorkerMetrics(config: Config, orm: Orm): Promise<RunningMetricsServer | null> {
  const { host, workerPort } = config.telemetry.metrics;
  if (workerPort === null) return null;
  return startMetricsServer({
    registry: workerMetrics,
    host,
    port: workerPort,
    beforeScrape: async () => {
      drainTemporalMetrics();
      await refreshGauges(orm);
    },
  });
}
