/**
 * The subscription workflow's activities. A subscription lives for years and is the only thing that will ever bill
 * it again, so none of its steps may give up: every activity is retried without a limit (the interval capped at
 * five minutes), and an outage of any length only delays the step. The steps are idempotent (step keys, ids derived
 * from the subscription, the cycle and the try), so a retry never writes or bills twice.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';

const OPTIONS = {
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
} as const;

export const subscriptionActivities = () => proxyActivities<Activities>(OPTIONS);

/**
 * The same steps as local activities (issue 28): they only read or write our database, so each runs inside the
 * workflow task that needs it instead of costing a Temporal round trip (a task scheduled, dispatched, completed and
 * a new workflow task). Retried the same way, without a limit: past a minute of failures the SDK waits between tries
 * on a durable timer. Nothing here calls a provider; the charge itself stays a regular activity of the charge child.
 */
export const subscriptionLocalActivities = () => proxyLocalActivities<Activities>(OPTIONS);
