/**
 * The activity options of the payment workflows (charge, settlement, capture/void/refund), in one place so every
 * provider call and every read-model write is retried the same way.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';

/**
 * How the database-only steps retry: on any failure and without a limit, since they are idempotent (state-table
 * moves under keys, ids derived from the workflow) and a step that gave up would leave its charge or operation
 * unfinished for good — pending with the money possibly taken — while nothing else finishes it. A database outage
 * of any length only delays them: tries within seconds at first, then every five minutes (as the subscription's
 * steps), so a long outage adds one timer every five minutes to the history of a local activity’s workflow.
 */
const DATABASE_RETRY = {
  initialInterval: '500 milliseconds',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
} as const;

/** Database-only activities: short, retried on any failure without a limit. */
export const databaseActivities = () =>
  proxyActivities<Activities>({ startToCloseTimeout: '15 seconds', retry: DATABASE_RETRY });

/**
 * The same database-only steps as local activities: they run inside the workflow task that schedules them, so a
 * step costs its database work and no Temporal round trip (measured: each regular activity cost ~35-100 ms on the
 * dev server). They are idempotent and retried the same way; a worker that dies mid-step leaves the workflow task
 * to time out, and the next worker runs the step again. Provider calls never run as local activities: they stay
 * named, retried activities an operator sees in the Temporal UI.
 */
export const localDatabaseActivities = () =>
  proxyLocalActivities<Activities>({ startToCloseTimeout: '15 seconds', retry: DATABASE_RETRY });

/**
 * One provider call per activity: the adapter gives up after providerTimeoutMs (15 s) and reports network_error,
 * so 45 s only trips on a hung worker. The activity heartbeats while the call is in flight, so a worker that dies
 * mid-call is noticed after 10 s rather than 45. A retry reuses the provider idempotency key, so it never charges
 * (or captures, or refunds) twice. Three tries: a crash loop must not hold the API caller for long.
 */
export const providerActivities = () =>
  proxyActivities<Activities>({
    startToCloseTimeout: '45 seconds',
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
  });
