/**
 * The kick half of the webhook outbox. recordEvent NOTIFYs `switchyard_events` with the event id inside the
 * producer's transaction; PostgreSQL delivers it only after commit, so this listener fans the event out right
 * after the change is durable — and never for a change that rolled back.
 *
 * A notification sent while no listener was connected is simply lost; that is what the sweep is for. It runs on
 * a Temporal schedule every minute (worker/schedules.ts) and, to close the gap at once, whenever this listener
 * (re)connects. Errors here are logged and never fatal: the sweep is the safety net.
 */
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../domain/platform/config';
import { createLogger } from '../domain/platform/logger';
import type { Orm } from '../db/orm';
import { EVENTS_CHANNEL } from '../domain/events/events.outbox';
import { MAIL_CHANNEL } from '../domain/mail/mail.outbox';
import { startMailDelivery } from '../activities/mail';
import { fanOutEvents } from '../activities/webhooks/fan-out';
import { directSlots, fanOutDirect } from '../activities/webhooks/direct-fan-out';
import { webhookSettingsOf, type WebhookSettings } from '../activities/webhooks/settings';
import { TASK_QUEUES } from '../workflows/definitions';
import { webhookOutboxSweepWorkflow } from '../workflows/webhook-fan-out';
import { boundedQueue } from './bounded-queue';

export const CATCH_UP_SWEEP_WORKFLOW_ID = 'switchyard-webhook-sweep-catch-up';
const RECONNECT_DELAY_MS = 2_000;
/** Fan-outs in flight at once (each holds a pooled connection while it starts its workflows). */
const MAX_CONCURRENT_FAN_OUTS = 4;
/** Notified events one fan-out takes at most. */
export const FAN_OUT_BATCH = 100;
/** Notifications waiting for a fan-out slot; beyond this they are dropped and left to the sweep (bounded memory). */
export const MAX_WAITING_FAN_OUTS = 1000;

export interface OutboxListener {
  stop(): Promise<void>;
}

interface RawPgConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  removeAllListeners(): void;
  end(): Promise<void>;
}

interface KnexPgClient {
  acquireRawConnection(): Promise<RawPgConnection>;
}

/** Stops reacting to a connection; a late 'error' from it must still have a listener, or it would crash the process. */
function detach(raw: RawPgConnection): void {
  raw.removeAllListeners();
  raw.on('error', () => undefined);
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
  /** With these, attempt 1 of each delivery is made here, directly (direct-fan-out.ts); else workflows only. */
  webhooks?: WebhookSettings;
}): Promise<OutboxListener> {
  const { orm, client, taskQueue, logger, webhooks } = options;
  const slots = directSlots();
  // Direct attempts still running after their fan-out task returned; stop() waits for them.
  const attempts = new Set<Promise<void>>();
  const fanOut = async (eventIds: string[]): Promise<void> => {
    if (!webhooks) {
      await fanOutEvents({ orm, client, taskQueue }, eventIds);
      return;
    }
    const { settled } = await fanOutDirect({ orm, client, taskQueue, webhooks, slots }, eventIds);
    const tracked: Promise<void> = settled.then(
      () => undefined,
      (error) => logger.warn({ err: error, eventIds }, 'Webhook fan-out failed; the outbox sweep will finish it'),
    );
    attempts.add(tracked);
    void tracked.finally(() => attempts.delete(tracked));
  };
  // Notified event ids not yet taken by a fan-out. Each notification queues one task, and a task takes every id
  // waiting (up to FAN_OUT_BATCH): alone when idle, in batches under a burst (one lease, one read, one mark each).
  const notified: string[] = [];
  const takeBatch = () => notified.splice(0, FAN_OUT_BATCH);
  // A dedicated connection outside the pool (LISTEN holds it for good), opened with the ORM's own settings.
  const knexClient = orm.em.getConnection().getKnex().client as unknown as KnexPgClient;
  const fanOuts = boundedQueue(MAX_CONCURRENT_FAN_OUTS, options.maxWaiting ?? MAX_WAITING_FAN_OUTS);
  // One warning per overflow, not one per dropped event (an overflow is exactly when the log is under pressure).
  let overflowing = false;
  let connection: RawPgConnection | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    if (stopped) return;
    try {
      const raw = await knexClient.acquireRawConnection();
      raw.on('notification', ({ channel, payload }) => {
        if (channel === MAIL_CHANNEL && payload && !stopped) {
          // One workflow start; the mail sweep catches any that fails here.
          startMailDelivery(client, taskQueue, payload).catch((error) =>
            logger.warn({ err: error, mailId: payload }, 'Could not start a mail delivery; the mail sweep will'),
          );
          return;
        }
        if (channel !== EVENTS_CHANNEL || !payload || stopped) return;
        // The id goes in first: push() may start the task at once, and the task takes what is waiting.
        notified.push(payload);
        const queued = fanOuts.push(async () => {
          const batch = takeBatch();
          if (batch.length === 0) return; // an earlier task took this notification's id
          await fanOut(batch).catch((error) =>
            logger.warn({ err: error, eventIds: batch }, 'Webhook fan-out failed; the outbox sweep will retry it'),
          );
        });
        if (!queued) notified.pop(); // refused: left to the sweep
        if (!queued && !overflowing)
          logger.warn({ eventId: payload }, 'Webhook fan-out queue full; the outbox sweep will fan these events out');
        overflowing = !queued;
      });
      const lost = (error?: Error) => {
        if (connection !== raw) return;
        connection = undefined;
        detach(raw);
        if (!stopped) {
          logger.warn({ err: error }, 'Outbox listener connection lost; reconnecting');
          retry = setTimeout(() => void connect(), RECONNECT_DELAY_MS);
        }
      };
      raw.on('error', lost);
      raw.on('end', lost);
      await raw.query(`listen ${EVENTS_CHANNEL}`);
      await raw.query(`listen ${MAIL_CHANNEL}`);
      if (stopped) {
        detach(raw);
        await raw.end().catch(() => undefined);
        return;
      }
      connection = raw;
      // Whatever was notified while nobody listened is still in the outbox.
      await kickSweep(client, taskQueue).catch((error) =>
        logger.warn({ err: error }, 'Could not start the catch-up sweep; the schedule will run it'),
      );
    } catch (error) {
      logger.warn({ err: error }, 'Outbox listener could not connect; retrying');
      if (!stopped) retry = setTimeout(() => void connect(), RECONNECT_DELAY_MS);
    }
  };

  await connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const current = connection;
      connection = undefined;
      if (current) {
        detach(current);
        await current.end().catch(() => undefined);
      }
      // Fan-outs already running finish (or roll back); queued ones are left to the sweep.
      await fanOuts.drain();
      notified.length = 0;
      // Attempts still waiting for a slot go to their workflows; those sending finish (within their deadline).
      slots.close();
      await Promise.all([...attempts]);
    },
  };
}

export interface WebhookOutbox extends OutboxListener {
  /** The Temporal client the webhook activities start delivery workflows with. */
  client: Client;
}

/** The worker's listener with its own Temporal client connection and logger; stop() closes all of it. */
export async function startWebhookOutbox(
  config: Config,
  orm: Orm,
  taskQueue: string = TASK_QUEUES.webhooks,
): Promise<WebhookOutbox> {
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const listener = await startOutboxListener({
    orm,
    client,
    taskQueue,
    logger: createLogger(config.logLevel),
    webhooks: webhookSettingsOf(config),
  });
  return {
    client,
    async stop() {
      await listener.stop();
      await connection.close();
    },
  };
}
