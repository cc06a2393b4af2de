/**
 * What the webhook delivery workflow shares with its starters (the outbox fan-out, the API's redeliveries) and
 * its activity: its input, result, id, start options, status query, registered name and retry schedule. Pure,
 * like Temporal's samples' shared.ts: activities import this file, never workflows/webhook-delivery.ts.
 */
import { defineQuery } from '@temporalio/workflow';
import { SEARCH_ATTRIBUTE_KEYS as SA } from './definitions';

/** Registered name (workflows/index.ts): activities start the workflow by name. */
export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>;

export type DeliveryStatusValue = 'pending' | 'retrying' | 'succeeded' | 'failed';

export interface WebhookDeliveryInput {
  eventId: string;
  configId: string;
  merchantId: string;
  eventType: string;
  /** automatic: the full schedule; manual (redeliver, recover): one attempt. */
  trigger: 'automatic' | 'manual';
}

/** Why a delivery is over. */
export type DeliveryEnd = 'delivered' | 'gone' | 'exhausted' | 'endpoint_disabled' | 'endpoint_deleted';

export interface WebhookDeliveryResult {
  status: 'succeeded' | 'failed';
  attempts: number;
  end: DeliveryEnd | 'error';
  lastHttpStatus: number | null;
}

export const deliveryWorkflowId = (eventId: string, configId: string, suffix?: string) =>
  `webhook-${eventId}-${configId}${suffix ? `-${suffix}` : ''}`;

/**
 * How a delivery workflow is started, by the fan-out activity and by the API's redeliveries alike: a finished
 * delivery (succeeded or failed) is never re-run under its id; manual sends use new ids (a suffix).
 */
export const deliveryStartOptions = (input: WebhookDeliveryInput, taskQueue: string, suffix?: string) => ({
  workflowId: deliveryWorkflowId(input.eventId, input.configId, suffix),
  taskQueue,
  args: [input] as [WebhookDeliveryInput],
  workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
  workflowIdConflictPolicy: 'FAIL' as const,
  typedSearchAttributes: [
    { key: SA.MerchantId, value: input.merchantId },
    { key: SA.EventType, value: input.eventType },
    { key: SA.DeliveryStatus, value: 'pending' },
  ],
});

export const deliveryStatusQuery = defineQuery<DeliveryStatusValue>('deliveryStatus');

/*
 * The retry schedule (pure and deterministic: the workflow passes its seeded Math.random).
 *
 * Svix-like, across about 26 hours: attempt 1 immediately, then after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h
 * (each ±10 % jitter, so endpoints that fail together do not get retried in lock-step), then one last attempt
 * at the end of the window, 26 h after the first (±1 %). Eight attempts in all; after the last the delivery is
 * abandoned (failed). A Retry-After from the receiver stretches the next wait (capped at 6 h) but never past
 * the end of the window.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after attempts 1…6 before jitter. */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR] as const;
export const RETRY_WINDOW_MS = 26 * HOUR;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 2;
export const DELAY_JITTER = 0.1;
export const WINDOW_JITTER = 0.01;
export const RETRY_AFTER_CAP_MS = 6 * HOUR;

export interface RetryPlan {
  /** Jittered waits after attempts 1…6. */
  delaysMs: number[];
  /** Jittered window: the last attempt happens this long after the first. */
  windowMs: number;
}

const jittered = (base: number, spread: number, random: () => number) =>
  Math.round(base * (1 + spread * (2 * random() - 1)));

export function planRetries(random: () => number): RetryPlan {
  return {
    delaysMs: RETRY_DELAYS_MS.map((delay) => jittered(delay, DELAY_JITTER, random)),
    windowMs: jittered(RETRY_WINDOW_MS, WINDOW_JITTER, random),
  };
}

/** What the attempt being made needs to know to say when the next one would be. */
export interface NextAttempt {
  /** The planned wait after this attempt (for the 7th: the rest of the window). */
  plannedDelayMs: number;
  /** Time left in the window when this attempt starts. */
  remainingMs: number;
}

/**
 * The schedule slot after attempt `attempt` (1-based), or null when that attempt is the last: the eighth, or
 * one made at (or after) the end of the window.
 */
export function nextAttempt(plan: RetryPlan, attempt: number, elapsedMs: number): NextAttempt | null {
  const remainingMs = plan.windowMs - elapsedMs;
  if (attempt >= MAX_ATTEMPTS || remainingMs <= 0) return null;
  const plannedDelayMs = attempt <= plan.delaysMs.length ? plan.delaysMs[attempt - 1] : remainingMs;
  return { plannedDelayMs, remainingMs };
}

/** The wait before the next attempt: the planned one, stretched by Retry-After (capped), within the window. */
export function waitBeforeNext(next: NextAttempt, retryAfterMs: number | null): number {
  const requested = Math.min(retryAfterMs ?? 0, RETRY_AFTER_CAP_MS);
  return Math.max(0, Math.min(Math.max(next.plannedDelayMs, requested), next.remainingMs));
}
