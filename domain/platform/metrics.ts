/**
 * The Prometheus metrics of Switchyard (prom-client), in three registries by who serves them:
 * - `processMetrics`: Node's own (CPU, heap, event-loop lag) and what shared domain code counts whichever role runs
 *   it (transaction status moves): one set per process, served by the first metrics endpoint the process opens
 *   (metrics-server.ts), so `npm start`, with the API and the worker in one process, never exposes them twice;
 * - `apiMetrics`: the HTTP requests (api/http/telemetry.ts);
 * - `workerMetrics`: provider attempts, webhook deliveries, renewals, activity retries, the gauges read from the
 *   database at scrape time and the Temporal SDK's own worker metrics (worker/telemetry.ts).
 * Every label is bounded: methods, route templates, statuses, providers, connectors (configuration, not traffic),
 * outcomes, activity types. Never a transaction, customer or request id.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

export const processMetrics = new Registry();
export const apiMetrics = new Registry();
export const workerMetrics = new Registry();

collectDefaultMetrics({ register: processMetrics, prefix: 'switchyard_' });

/** One series of a SeriesHistogram: what a request records into. */
export interface HistogramSeries {
  observe(value: number): void;
}

interface SeriesValues {
  labels: Record<string, string>;
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * A histogram whose series are made once each and then observed without allocating: prom-client's `observe` builds
 * a label object and hashes the labels into a string on every call, which the API would pay on every request.
 * Served by a prom-client registry in the Prometheus text format exactly as a prom-client Histogram is.
 */
export class SeriesHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly made: SeriesValues[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** A new series with these labels: call once per label set and keep it (a second call makes a second series). */
  series(labels: Record<string, string>): HistogramSeries {
    const values: SeriesValues = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
    this.made.push(values);
    const { bounds } = this;
    return {
      observe(value: number) {
        let bucket = 0;
        while (bucket < bounds.length && value > bounds[bucket]) bucket += 1;
        if (bucket < bounds.length) values.buckets[bucket] += 1;
        values.sum += value;
        values.count += 1;
      },
    };
  }

  /** The exposition's values, in prom-client's shape: each series' cumulative buckets, +Inf, sum and count. */
  getForPromString() {
    const values = this.made.flatMap(({ labels, buckets, sum, count }) => {
      let cumulative = 0;
      return [
        ...this.bounds.map((le, index) => ({
          labels: { le },
          sharedLabels: labels,
          value: (cumulative += buckets[index]),
          metricName: `${this.name}_bucket`,
        })),
        { labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: `${this.name}_bucket` },
        { labels: {}, sharedLabels: labels, value: sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: labels, value: count, metricName: `${this.name}_count` },
      ];
    });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  get() {
    const data = this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, ...rest }) => ({
        ...rest,
        labels: { ...sharedLabels, ...labels },
      })),
    };
  }

  reset(): void {
    for (const values of this.made) {
      values.buckets.fill(0);
      values.sum = 0;
      values.count = 0;
    }
  }
}

/** Request durations by method, route template and status (api/http/telemetry.ts makes each series once). */
export const httpRequestDuration = new SeriesHistogram(
  'switchyard_http_request_duration_seconds',
  'API requests by method, route template (unmatched for unknown paths) and response status',
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  apiMetrics,
);

export const transactionMoves = new Counter({
  name: 'switchyard_transactions_total',
  help: 'Transactions entering a status (each move of the transaction state table), by status and payment method',
  labelNames: ['status', 'payment_method'] as const,
  registers: [processMetrics],
});

export const chargeAttempts = new Counter({
  name: 'switchyard_charge_attempts_total',
  help: 'Provider calls of charge attempts, by provider, connector, payment method and normalised outcome',
  labelNames: ['provider', 'connector', 'payment_method', 'outcome'] as const,
  registers: [workerMetrics],
});

export const webhookDeliveries = new Counter({
  name: 'switchyard_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed, deferred)',
  labelNames: ['outcome'] as const,
  registers: [workerMetrics],
});

export const renewalsDue = new Counter({
  name: 'switchyard_renewals_due_total',
  help: 'Subscription renewals that came due and were prepared for charging',
  registers: [workerMetrics],
});

export const renewalOutcomes = new Counter({
  name: 'switchyard_renewals_total',
  help: 'Renewal charges settled, by outcome (succeeded, failed, pending, in_doubt)',
  labelNames: ['outcome'] as const,
  registers: [workerMetrics],
});

export const activityFailures = new Counter({
  name: 'switchyard_activity_failed_attempts_total',
  help:
    'Failed activity attempts Temporal retries, by activity type and whether the activity has been retrying ' +
    'for over ten minutes since its first attempt',
  labelNames: ['activity_type', 'retrying_over_10m'] as const,
  registers: [workerMetrics],
});

export const circuitState = new Gauge({
  name: 'switchyard_connector_circuit_state',
  help: "A connector's circuit breaker: 0 closed, 1 half-open, 2 open",
  labelNames: ['provider', 'connector'] as const,
  registers: [workerMetrics],
});

export const webhookBacklog = new Gauge({
  name: 'switchyard_webhook_backlog',
  help: 'Webhook work waiting: events not yet fanned out (fan_out), deliveries waiting for a retry (retry)',
  labelNames: ['stage'] as const,
  registers: [workerMetrics],
});

export const unknownOutcomes = new Gauge({
  name: 'switchyard_unknown_outcomes_awaiting_resolution',
  help: 'Charge attempts whose provider outcome nobody could tell yet (the reconciler is asking)',
  registers: [workerMetrics],
});

/** A transaction moved to `status` (transactions.transitions.ts). */
export function countTransactionMove(status: string, paymentMethod: string): void {
  transactionMoves.inc({ status, payment_method: paymentMethod });
}

/** A charge attempt's provider call came back (or was refused before it): attemptCharge's outcome. */
export function countChargeAttempt(attempt: {
  provider: string;
  connector: string;
  paymentMethod: string;
  outcome: string;
}): void {
  chargeAttempts.inc({
    provider: attempt.provider,
    connector: attempt.connector,
    payment_method: attempt.paymentMethod,
    outcome: attempt.outcome,
  });
}
