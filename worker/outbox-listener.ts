/**
 * The kick half of the webhook outbox. recordEvent NOTIFYs `switchyard_events` with the event id inside the
 * producer's transaction; PostgreSQL delivers it only after commit, so this listener fans the event out right
 * after the change is durable — and never for a change that rolled back. It runs the sweep's own fan-out
 * (activities/webhooks/fan-out.ts: claim, one delivery workflow per matching endpoint, mark); the delivery
 * workflows make every attempt.
 *
 * A notification sent while no listener was connected is simply lost; that is what the sweep is for. It runs on
 * a Temporal schedule every minute (worker/schedules.ts) and, to close the gap at once, whenever this listener
 * (re)connects. Errors here are logged and never fatal: the sweep is the safety net.
 */
import { Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Config } from '../domain/platform/config';
import { createLogger } from '../domain/platform/logger';
import type { Orm } from '../db/orm';
import { listen } from '../db/listen';
import { EVENTS_CHANNEL } from '../domain/events/events.outbox';
import { MAIL_CHANNEL } from '../domain/mail/mail.outbox';
import { startMailDelivery } from '../activities/mail';
import { FAN_OUT_TRANSACTION_EVENTS, fanOutEvents } from '../activities/webhooks/fan-out';
import { TASK_QUEUES } from '../workflows/definitions';
import { webhookOutboxSweepWorkflow } from '../workflows/webhook-fan-out';
import { tracingClientInterceptors } from './telemetry';

export const CATCH_UP_SWEEP_WORKFLOW_ID = 'switchyard-webhook-sweep-catch-up';
/** Fan-outs in flight at once (each holds a pooled connection while it starts its workflows). */
const MAX_CONCURRENT_FAN_OUTS = 4;
/** Notifications waiting for a fan-out slot; beyond this they are dropped and left to the sweep (bounded memory). */
export const MAX_WAITING_FAN_OUTS = 1000;

export interface OutboxListener {
  stop(): Promise<void>;
}

/**
 * Runs at most `concurrency` tasks at a time, in arrival order, with at most `maxWaiting` queued behind them.
 * This listener's notifications arrive as fast as PostgreSQL commits; while Temporal or the database is
 * slow, an unbounded queue would grow with every event until the worker runs out of memory. A task refused here
 * is not lost work: its event stays in the outbox, where the sweep finds it.
 */
export interface BoundedQueue {
  /** Queues the task; false (and the task is not run) when `maxWaiting` tasks are already waiting. */
  push(task: () => Promise<void>): boolean;
  /** Tasks queued and not yet started. */
  readonly waiting: number;
  /** Drops what is queued and resolves once nothing is running. */
  drain(): Promise<void>;
}

export function boundedQueue(concurrency: number, maxWaiting: number): BoundedQueue {
  const waiting: (() => Promise<void>)[] = [];
  let running = 0;
  const pump = () => {
    while (running < concurrency && waiting.length > 0) {
      const task = waiting.shift() as () => Promise<void>;
      running += 1;
      void task().finally(() => {
        running -= 1;
        pump();
      });
    }
  };
  return {
    push(task) {
      if (running >= concurrency && waiting.length >= maxWaiting) return false;
      waiting.push(task);
      pump();
      return true;
    },
    get waiting() {
      return waiting.length;
    },
    async drain() {
      waiting.length = 0;
      while (running > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}

export async function kickSweep(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.workflow.start(webhookOutboxSweepWorkflow, {
      workflowId: CATCH_UP_SWEEP_WORKFLOW_ID,
      taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

export async function startOutboxListener(options: {
  orm: Orm;
  client: Client;
  taskQueue: string;
  logger: Logger;
  /** Notifications waiting for a fan-out slot before new ones are left to the sweep (MAX_WAITING_FAN_OUTS). */
  maxWaiting?: number;
  /** `client` is on the connection of a worker polling `taskQueue`: delivery workflows start eagerly (FanOutDeps). */
  eager?: boolean;
}): Promise<OutboxListener> {
  const { orm, client, taskQueue, logger, eager } = options;
  // Notified event ids not yet taken by a fan-out. Each notification queues one task, and a task takes every id
  // waiting (up to one fan-out transaction's worth): alone when idle, in batches under a burst (one claim, one
  // read, one mark each).
  const notified: string[] = [];
  const takeBatch = () => notified.splice(0, FAN_OUT_TRANSACTION_EVENTS);
  const fanOuts = boundedQueue(MAX_CONCURRENT_FAN_OUTS, options.maxWaiting ?? MAX_WAITING_FAN_OUTS);
  // One warning per overflow, not one per dropped event (an overflow is exactly when the log is under pressure).
  let overflowing = false;
  let stopped = false;

  const onEvent = (payload: string) => {
    if (!payload || stopped) return;
    // The id goes in first: push() may start the task at once, and the task takes what is waiting.
    notified.push(payload);
    const queued = fanOuts.push(async () => {
      const batch = takeBatch();
      if (batch.length === 0) return; // an earlier task took this notification's id
      await fanOutEvents({ orm, client, taskQueue, eager }, batch).catch((error) =>
        logger.warn({ err: error, eventIds: batch }, 'Webhook fan-out failed; the outbox sweep will retry it'),
      );
    });
    if (!queued) notified.pop(); // refused: left to the sweep
    if (!queued && !overflowing)
      logger.warn({ eventId: payload }, 'Webhook fan-out queue full; the outbox sweep will fan these events out');
    overflowing = !queued;
  };
  const onMail = (mailId: string) => {
    if (!mailId || stopped) return;
    // One workflow start; the mail sweep catches any that fails here.
    startMailDelivery(client, taskQueue, mailId).catch((error) =>
      logger.warn({ err: error, mailId }, 'Could not start a mail delivery; the mail sweep will'),
    );
  };
  const onState = (listening: boolean, error?: Error) => {
    if (stopped) return;
    if (!listening) {
      if (error) logger.warn({ err: error }, 'Outbox listener connection lost; reconnecting');
      return;
    }
    // Whatever was notified while nobody listened is still in the outbox.
    kickSweep(client, taskQueue).catch((failure) =>
      logger.warn({ err: failure }, 'Could not start the catch-up sweep; the schedule will run it'),
    );
  };
  const listeners = [await listen(orm, EVENTS_CHANNEL, onEvent, onState), await listen(orm, MAIL_CHANNEL, onMail)];
  return {
    async stop() {
      stopped = true;
      await Promise.all(listeners.map((listener) => listener.stop()));
      // Fan-outs already running finish (or roll back); queued ones are left to the sweep.
      await fanOuts.drain();
      notified.length = 0;
    },
  };
}

export interface WebhookOutbox extends OutboxListener {
  /** The Temporal client the webhook activities start delivery workflows with. */
  client: Client;
}

/**
 * The worker's listener, with a Temporal client on the Workers' own connection (so delivery workflows start
 * eagerly on this process's webhooks Worker) and its logger. stop() stops the listener; the connection is the
 * Workers', closed by them after it.
 */
export async function startWebhookOutbox(
  config: Config,
  orm: Orm,
  connection: NativeConnection,
  taskQueue: string = TASK_QUEUES.webhooks,
): Promise<WebhookOutbox> {
  const client = new Client({
    connection,
    namespace: config.temporal.namespace,
    interceptors: tracingClientInterceptors(),
  });
  const logger = createLogger(config.logLevel);
  const listener = await startOutboxListener({ orm, client, taskQueue, logger, eager: true });
  return { client, stop: () => listener.stop() };
}
