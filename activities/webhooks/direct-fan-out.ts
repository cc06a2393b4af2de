/**
 * The outbox listener's fan-out: right after an event's commit, attempt 1 of each delivery is POSTed from here,
 * and a delivery workflow (which owns the retries, ~26 h) is started only when that attempt asks for a retry. A
 * receiver that answers at once costs no workflow round trip at all.
 *
 * Nothing is lost across a crash: before any POST the event is leased (events.fan_out_leased_until, its own
 * commit), and fanned_out_at is set only once every delivery of the event is settled or handed to its workflow.
 * A process dying in between leaves the lease to expire; the sweep (fan-out.ts) then continues each delivery from
 * the delivery log: a recorded attempt 1 is continued (workflow from attempt 2) or already final, a missing one is
 * made again by the workflow — so an attempt whose POST went out but whose record did not may be sent twice
 * (at-least-once; receivers dedupe on webhook-id, Document 1). Attempts are recorded exactly as the workflow's
 * activity records them (deliver.ts sendAndRecord: same row, attempt 1 under webhook-<evt>-<whc>).
 */
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import * as outbox from '../../db/repositories/events.repository';
import { deliveryWorkflowId, type WebhookDeliveryInput } from '../../workflows/webhook-delivery.shared';
import { nextAttempt, planRetries } from '../../workflows/lib/webhook-schedule';
import { MAX_DIRECT_PER_MERCHANT, MerchantSlots, sendAndRecord, type Target, type WebhookSettings } from './deliver';
import { startDelivery } from './fan-out';

/**
 * How long a direct fan-out owns its events: well beyond one attempt's whole-exchange deadline plus its record
 * and workflow starts, so the sweep never races a live fan-out, and short enough that a crash is repaired soon.
 */
export const DIRECT_LEASE_MS = 2 * 60_000;
/**
 * Direct attempts per process: in flight per endpoint (the pool's connections per origin), waiting per endpoint,
 * and in flight plus waiting in all. Beyond them a delivery starts its workflow at once, so a slow or hanging
 * endpoint costs bounded sockets and memory and never holds up the others.
 */
export const MAX_DIRECT_PER_ENDPOINT = 16;
export const MAX_DIRECT_WAITING_PER_ENDPOINT = 256;
export const MAX_DIRECT_TOTAL = 1024;

export interface DirectSlots {
  /**
   * null: no room (use the workflow); else resolves true once the attempt may run (release() after it), or false
   * when the slots were closed while it waited (use the workflow).
   */
  acquire(configId: string, merchantId?: string): Promise<boolean> | null;
  release(configId: string, merchantId?: string): void;
  /** Shutting down: waiting attempts get false at once, new ones null; running ones finish. */
  close(): void;
}

export function directSlots(
  perEndpoint = MAX_DIRECT_PER_ENDPOINT,
  waitingPerEndpoint = MAX_DIRECT_WAITING_PER_ENDPOINT,
  total = MAX_DIRECT_TOTAL,
  perMerchant = MAX_DIRECT_PER_MERCHANT,
): DirectSlots {
  let taken = 0;
  let closed = false;
  // One merchant cannot take the whole process's slots: past its share, its deliveries use their workflows.
  const merchants = new MerchantSlots(perMerchant);
  const endpoints = new Map<string, { running: number; waiting: ((granted: boolean) => void)[] }>();
  return {
    acquire(configId, merchantId) {
      if (closed || taken >= total) return null;
      const endpoint = endpoints.get(configId) ?? { running: 0, waiting: [] };
      if (endpoint.running >= perEndpoint && endpoint.waiting.length >= waitingPerEndpoint) return null;
      if (merchantId !== undefined && !merchants.tryTake(merchantId)) return null;
      if (endpoint.running < perEndpoint) {
        endpoint.running += 1;
        taken += 1;
        endpoints.set(configId, endpoint);
        return Promise.resolve(true);
      }
      taken += 1;
      return new Promise<boolean>((resolve) => endpoint.waiting.push(resolve));
    },
    release(configId, merchantId) {
      const endpoint = endpoints.get(configId);
      if (!endpoint) return;
      if (merchantId !== undefined) merchants.release(merchantId);
      taken -= 1;
      const next = endpoint.waiting.shift();
      if (next) return next(true); // the slot passes on: running stays the same
      endpoint.running -= 1;
      if (endpoint.running === 0) endpoints.delete(configId);
    },
    close() {
      closed = true;
      for (const endpoint of endpoints.values()) {
        taken -= endpoint.waiting.length;
        for (const waiter of endpoint.waiting.splice(0)) waiter(false);
      }
    },
  };
}

export interface DirectFanOutDeps {
  orm: Orm;
  client: Client;
  /** Where the delivery workflows run. */
  taskQueue: string;
  webhooks: WebhookSettings;
  slots: DirectSlots;
}

export interface DirectFanOut {
  /** Events this call leased (the others were taken or done already). */
  leased: number;
  /**
   * Settles once every leased event is marked fanned out: its direct attempts recorded, its workflows started.
   * Rejects when any failed; those events keep their lease and the sweep finishes them.
   */
  settled: Promise<void>;
}

const inputOf = (target: Target): WebhookDeliveryInput => ({
  eventId: target.event_id,
  configId: target.config_id as string,
  merchantId: target.merchant_id,
  eventType: target.type,
  trigger: 'automatic',
});

/** Attempt 1 of one delivery once its slot is free, then its workflow if the attempt asks for a retry. */
async function attemptFirst(deps: DirectFanOutDeps, target: Target, slot: Promise<boolean>): Promise<void> {
  const input = inputOf(target);
  if (!(await slot)) {
    // Shutting down before its turn: nothing was sent, the workflow makes attempt 1.
    await startDelivery(deps.client, deps.taskQueue, input, { traceparent: target.traceparent });
    return;
  }
  try {
    const attempted = await sendAndRecord(
      deps.orm.em.fork(),
      deps.webhooks,
      {
        eventId: input.eventId,
        configId: input.configId,
        workflowId: deliveryWorkflowId(input.eventId, input.configId),
        trigger: 'automatic',
        attempt: 1,
        // Jitter from this process's Math.random; the workflow plans attempts 2… with its own.
        next: nextAttempt(planRetries(Math.random), 1, 0),
      },
      target,
    );
    if (attempted.outcome === 'retrying') {
      await startDelivery(
        deps.client,
        deps.taskQueue,
        { ...input, firstAttempt: { at: attempted.sentAt, nextAt: attempted.nextRetryAt as number } },
        { traceparent: target.traceparent },
      );
    }
  } finally {
    deps.slots.release(input.configId, input.merchantId);
  }
}

/**
 * Leases these events and fans them out. Resolves once the deliveries without a free slot have their workflows
 * (so a caller's queue applies back-pressure to what Temporal must absorb); the direct attempts go on in
 * `settled`, each holding a slot.
 */
export async function fanOutDirect(deps: DirectFanOutDeps, eventIds: string[]): Promise<DirectFanOut> {
  const em = deps.orm.em.fork();
  const leased = await outbox.leaseForDirectFanOut(em, eventIds, DIRECT_LEASE_MS);
  if (leased.length === 0) return { leased: 0, settled: Promise.resolve() };
  const targets = await outbox.subscribedTargets(
    em,
    leased.map((event) => event.id),
  );

  const work = new Map<string, Promise<unknown>[]>(leased.map((event) => [event.id, []]));
  const fallbacks: Promise<unknown>[] = [];
  for (const target of targets) {
    const jobs = work.get(target.event_id) as Promise<unknown>[];
    const slot = deps.slots.acquire(target.config_id as string, target.merchant_id);
    if (slot) {
      jobs.push(attemptFirst(deps, target, slot));
    } else {
      const started = startDelivery(deps.client, deps.taskQueue, inputOf(target), { traceparent: target.traceparent });
      jobs.push(started);
      fallbacks.push(started);
    }
  }
  await Promise.allSettled(fallbacks);

  const settled = (async () => {
    const outcomes = await Promise.all(
      [...work].map(async ([eventId, jobs]) => {
        const results = await Promise.allSettled(jobs);
        const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
        return { eventId, failure };
      }),
    );
    // Only events whose every delivery is settled or handed over leave the outbox; the others wait for the sweep.
    await outbox.markFannedOut(
      deps.orm.em.fork(),
      outcomes.filter((outcome) => !outcome.failure).map((outcome) => outcome.eventId),
    );
    const failed = outcomes.find((outcome) => outcome.failure);
    if (failed) throw failed.failure?.reason;
  })();
  return { leased: leased.length, settled };
}
