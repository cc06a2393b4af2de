/**
 * The Prometheus metrics of Switchyard (prom-client), in three registries by who serves them:
 * - `processMetrics`: Node's own (CPU, heap, event-loop lag) and what shared domain code counts whichever role runs
 *   it (transaction status moves): one set per process, served by the first metrics endpoint the process opens
 *   (metrics-server.ts), so `npm start`, with the API and the worker in one process, never exposes them twice;
 * - `apiMetrics`: the HTTP requests (api/http/telemetry.ts);
 * - `workerMetrics`: provider attempts, webhook deliveries, renewals, activity retries, the gauges read from the
 *   database at scrape time and the Temporal SDK's own worker metrics (worker/metrics.ts).
 * Every label is bounded: methods, route templates, statuses, providers, connectors (configuration, not traffic),
 * outcomes, activity types. Never a transaction, customer or request id.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const processMetrics = new Registry();
export const apiMetrics = new Registry();
export const workerMetrics = new Registry();

collectDefaultMetrics({ register: processMetrics, prefix: 'switchyard_' });

export const httpRequestDuration = new Histogram({
  name: 'switchyard_http_request_duration_seconds',
  help: 'API requests by method, route template (unmatched for unknown paths) and response status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [apiMetrics],
});

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
