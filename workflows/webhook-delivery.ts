/**
 * Delivery of one event to one webhook configuration (workflow id webhook-<evt>-<whc>; manual redeliveries add
 * a suffix): every attempt of every delivery is made here, from attempt 1. The outbox fan-out
 * (activities/webhooks/fan-out.ts, run by the listener right after the commit and by the sweep) starts it.
 * Attempts follow the schedule in webhook-delivery.shared.ts — immediately, 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, then the end of a ~26 h window — each one an activity that loads, signs, sends and records from ids, so
 * no secret and no payload is ever in this workflow's history.
 *
 * DeliveryStatus (search attribute, for the Temporal UI): pending (started, no attempt finished) → retrying
 * (an attempt failed, another is scheduled) → succeeded | failed. succeeded and failed are final.
 */
import {
  ActivityFailure,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliverResult } from '../activities/webhooks/deliver';
import { SEARCH_ATTRIBUTE_KEYS as SA } from './definitions';
import {
  deliveryStatusQuery,
  nextAttempt,
  planRetries,
  type DeliveryStatusValue,
  type WebhookDeliveryInput,
  type WebhookDeliveryResult,
} from './webhook-delivery.shared';

// One attempt: a 15 s HTTP deadline plus DNS and two short writes. Temporal retries only infrastructure errors
// (the activity reports HTTP outcomes as results); after those retries the attempt counts as failed.
const { deliverWebhook } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4 },
});

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  let status: DeliveryStatusValue = 'pending';
  setHandler(deliveryStatusQuery, () => status);
  const setStatus = (value: DeliveryStatusValue) => {
    if (value === status) return;
    status = value;
    upsertSearchAttributes([{ key: SA.DeliveryStatus, value }]);
  };
  // Starters set these at start (activities/webhooks/fan-out.ts startDelivery); a start without them still gets
  // them. Skipped otherwise: each upsert is a visibility write, and throughput depends on it.
  if (workflowInfo().typedSearchAttributes.get(SA.MerchantId) === undefined) {
    upsertSearchAttributes([
      { key: SA.MerchantId, value: input.merchantId },
      { key: SA.EventType, value: input.eventType },
      { key: SA.DeliveryStatus, value: status },
    ]);
  }

  // Workflow Math.random is seeded per run: the jitter is random across deliveries yet replays identically.
  const plan = planRetries(Math.random);
  const firstAttemptAt = Date.now();
  let lastHttpStatus: number | null;
  // Deferrals of the attempt being made, in a row.
  let deferrals = 0;
  for (let attempt = 1; ; attempt += 1) {
    const next = input.trigger === 'manual' ? null : nextAttempt(plan, attempt, Date.now() - firstAttemptAt);
    let result: DeliverResult;
    try {
      result = await deliverWebhook({
        eventId: input.eventId,
        configId: input.configId,
        workflowId: workflowInfo().workflowId,
        trigger: input.trigger,
        attempt,
        next,
        // An attempt may be deferred while the merchant's attempts in flight are at their cap: one merchant's flood
        // must not delay another merchant's deliveries.
        deferFor: input.merchantId,
        deferrals,
      });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      // Our own infrastructure failed (database, key material) even after retries: count it as a failed attempt.
      result = next
        ? { outcome: 'retrying', waitMs: next.plannedDelayMs, end: null, httpStatus: null }
        : { outcome: 'failed', waitMs: null, end: null, httpStatus: null };
    }
    if (result.outcome === 'deferred') {
      // Nothing was sent: the merchant has enough attempts in flight. The same attempt asks again, later each time.
      deferrals += 1;
      await sleep(result.waitMs as number);
      attempt -= 1;
      continue;
    }
    deferrals = 0;
    lastHttpStatus = result.httpStatus;
    if (result.outcome === 'retrying') {
      setStatus('retrying');
      await sleep(result.waitMs as number);
      continue;
    }
    setStatus(result.outcome);
    return { status: result.outcome, attempts: attempt, end: result.end ?? 'error', lastHttpStatus };
  }
}
