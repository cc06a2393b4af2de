/**
 * The subscription workflow's activities. A subscription lives for years and is the only thing that will ever bill
 * it again, so none of its steps may give up: every activity is retried without a limit (the interval capped at
 * five minutes), and an outage of any length only delays the step. The steps are idempotent (step keys, ids derived
 * from the subscription, the cycle and the try), so a retry never writes or bills twice.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';

export const subscriptionActivities = () =>
  proxyActivities<Activities>({
    startToCloseTimeout: '15 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  });
