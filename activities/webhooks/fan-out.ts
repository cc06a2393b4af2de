/**
 * The webhook outbox (events.fanned_out_at null = not yet fanned out) and its one fan-out: one delivery workflow
 * per (event, active matching configuration), which makes every attempt. The worker's outbox listener runs it right
 * after each event's commit (worker/outbox-listener.ts); the sweep activity below runs the same code every minute,
 * and when a listener (re)connects, for whatever a lost NOTIFY or a failed fan-out left in the outbox.
 *
 * Each fan-out claims its event rows (FOR UPDATE SKIP LOCKED, so concurrent workers never both work on one),
 * starts the delivery workflows and marks the events in that one transaction. A process dying half-way rolls the
 * mark back and the sweep redoes the fan-out; the delivery workflow ids (webhook-<evt>-<whc>, REJECT_DUPLICATE)
 * make the redo start only what is missing.
 */
import * as outbox from '../../db/repositories/events.repository';
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import {
  deliveryStartOptions,
  WEBHOOK_DELIVERY_WORKFLOW,
  type WebhookDeliveryInput,
  type WebhookDeliveryWorkflow,
} from '../../workflows/webhook-delivery.shared';
import { recoverableEvents } from '../../db/repositories/webhooks.repository';
import { inStoredTrace } from '../../domain/platform/tracing';

export interface FanOutDeps {
  orm: Orm;
  client: Client;
  /** Where the delivery workflows run. */
  taskQueue: string;
  /**
   * The client is on the connection of a worker that polls `taskQueue` (the outbox listener's): each start asks for
   * its first workflow task in the answer (eager start), saving the task's trip through the server's matching.
   */
  eager?: boolean;
}

export interface FanOutResult {
  /** Delivery workflows this fan-out started (the others already existed). */
  started: number;
  configurations: number;
}

/**
 * Starts one delivery workflow; false when a workflow with that id exists (running or finished). `traceparent`: the
 * event's stored trace context, which the workflow (its start carries the active trace) and its attempts continue.
 */
export async function startDelivery(
  client: Client,
  taskQueue: string,
  input: WebhookDeliveryInput,
  { suffix, traceparent = null, eager = false }: { suffix?: string; traceparent?: string | null; eager?: boolean } = {},
) {
  try {
    await inStoredTrace(traceparent, () =>
      client.workflow.start<WebhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW, {
        ...deliveryStartOptions(input, taskQueue, suffix),
        requestEagerStart: eager,
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}

/** Events per fan-out transaction: its row locks are held while it starts their workflows. */
export const FAN_OUT_TRANSACTION_EVENTS = 50;
/** Workflow starts one fan-out has in flight at once. */
export const MAX_PARALLEL_STARTS = 32;

/** Runs `task` over `items` with at most `limit` running at once; results in item order. */
async function mapBounded<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]);
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * Fans these events out in one transaction (one claim, one subscription read, one mark; the workflow starts in
 * parallel, MAX_PARALLEL_STARTS at a time). Returns a result per event it fanned out; events missing from it had
 * nothing to do (already fanned out, unknown, or being fanned out by another process right now). An endpoint
 * created after the event does not receive it.
 */
export async function fanOutEvents(
  { orm, client, taskQueue, eager }: FanOutDeps,
  eventIds: string[],
): Promise<Map<string, FanOutResult>> {
  return orm.em.fork().transactional(async (em) => {
    const events = await outbox.claimForFanOut(em, eventIds);
    const byId = new Map(events.map((event) => [event.id, event]));
    const pairs = await outbox.subscribedConfigIds(
      em,
      events.map((event) => event.id),
    );
    const started = await mapBounded(pairs, MAX_PARALLEL_STARTS, async ({ eventId, configId }) => {
      const event = byId.get(eventId) as outbox.OutboxEvent;
      return startDelivery(
        client,
        taskQueue,
        { eventId, configId, merchantId: event.merchantId, eventType: event.type, trigger: 'automatic' },
        { traceparent: event.traceparent, eager },
      );
    });
    await outbox.markFannedOut(em, [...byId.keys()]);
    const results = new Map<string, FanOutResult>(events.map((event) => [event.id, { started: 0, configurations: 0 }]));
    pairs.forEach((pair, index) => {
      const result = results.get(pair.eventId) as FanOutResult;
      result.configurations += 1;
      if (started[index]) result.started += 1;
    });
    return results;
  });
}

export interface RecoverBatchInput {
  merchantId: string;
  configId: string;
  since: string;
  until: string;
  /** Workflow-id suffix shared by this recovery's deliveries. */
  suffix: string;
  /** Event id cursor: continue after it. */
  after: string | null;
  limit: number;
}

/** Client for the activities: the worker's, or a test's. */
function clientOf(client: Client | undefined): Client {
  if (!client) throw new Error('The worker was started without a Temporal client for webhook activities');
  return client;
}

export function createFanOutActivities({ orm, temporalClient }: { orm: Orm; temporalClient?: Client }) {
  return {
    /**
     * One sweep batch: fans out the oldest events still in the outbox; deliveries go to this activity's own task
     * queue. `more` says a full batch was read (the sweep workflow then runs another).
     */
    async sweepWebhookOutbox(limit: number): Promise<{ fannedOut: number; more: boolean }> {
      const deps = { orm, client: clientOf(temporalClient), taskQueue: Context.current().info.taskQueue };
      const ids = await outbox.unfannedEventIds(orm.em.fork(), limit);
      let fannedOut = 0;
      for (let from = 0; from < ids.length; from += FAN_OUT_TRANSACTION_EVENTS) {
        fannedOut += (await fanOutEvents(deps, ids.slice(from, from + FAN_OUT_TRANSACTION_EVENTS))).size;
      }
      return { fannedOut, more: ids.length === limit };
    },

    /** One recovery batch: a manual single-attempt delivery per recoverable event, ordered by event id. */
    async startRecoveryBatch(input: RecoverBatchInput): Promise<{ queued: number; cursor: string | null }> {
      const client = clientOf(temporalClient);
      const taskQueue = Context.current().info.taskQueue;
      const rows = await recoverableEvents(
        orm.em.fork(),
        { configId: input.configId, since: input.since, until: input.until },
        { after: input.after ?? '', limit: input.limit },
      );
      await Promise.all(
        rows.map((row) =>
          startDelivery(
            client,
            taskQueue,
            {
              eventId: row.event_id,
              configId: input.configId,
              merchantId: input.merchantId,
              eventType: row.event_type,
              trigger: 'manual',
            },
            { suffix: input.suffix },
          ),
        ),
      );
      return { queued: rows.length, cursor: rows.length === input.limit ? rows[rows.length - 1].event_id : null };
    },
  };
}
