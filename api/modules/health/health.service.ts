/**
 * Health checks of Document 1: each check reports up or down; the report is ok only when all are up.
 * Every check has a deadline so a hung dependency turns into "down", not a hung probe.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { temporal as proto } from '@temporalio/proto';
import type { AppDeps } from '../../deps';
import { TASK_QUEUES } from '../../../workflows/definitions';

const CHECK_TIMEOUT_MS = 2000;

/**
 * A live worker re-polls at least once a minute (Temporal ends an idle long poll after 60 s), but the server
 * keeps listing a dead worker's poller for minutes. Pollers not seen for longer than this are not counted.
 */
export const POLLER_FRESH_MS = 90_000;

type Poller = { lastAccessTime?: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null };

/** How many pollers were seen within POLLER_FRESH_MS of `now` (one without a timestamp counts: the server omitted it). */
export function freshPollers(pollers: Poller[], now: number): number {
  return pollers.filter(({ lastAccessTime: at }) => {
    if (!at?.seconds) return true;
    const seconds = typeof at.seconds === 'number' ? at.seconds : at.seconds.toNumber();
    return now - (seconds * 1000 + Math.floor((at.nanos ?? 0) / 1e6)) <= POLLER_FRESH_MS;
  }).length;
}

export interface CheckResult {
  status: 'up' | 'down';
  message?: string;
}

export interface HealthReport {
  status: 'ok' | 'error';
  info: Record<string, CheckResult> | null;
  error: Record<string, CheckResult> | null;
  details: Record<string, CheckResult>;
}

type Check = () => Promise<void>;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function healthChecks(deps: AppDeps, em: EntityManager) {
  const { connection, client } = deps.temporal;
  const namespace = deps.config.temporal.namespace;
  const database: Check = async () => {
    await withTimeout(em.execute('select 1'), 'PostgreSQL');
  };
  const temporal: Check = async () => {
    await connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => client.workflowService.getSystemInfo({}));
  };
  const worker: Check = async () => {
    const deadline = Date.now() + CHECK_TIMEOUT_MS;
    await Promise.all(
      Object.values(TASK_QUEUES).map(async (name) => {
        const response = await connection.withDeadline(deadline, () =>
          client.workflowService.describeTaskQueue({
            namespace,
            taskQueue: { name },
            taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
          }),
        );
        if (freshPollers(response.pollers, Date.now()) === 0)
          throw new Error(`No worker is polling task queue ${name}`);
      }),
    );
  };
  return { database, temporal, worker };
}

/** Messages are our own short texts: connection strings and stack traces never reach the report. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .split('\n')[0]
    .replace(/postgres(ql)?:\/\/\S+/gi, '[database]')
    .slice(0, 200);
}

export async function runChecks(checks: Record<string, Check>): Promise<HealthReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
      try {
        await check();
        return [name, { status: 'up' }];
      } catch (error) {
        return [name, { status: 'down', message: describe(error) }];
      }
    }),
  );
  const details = Object.fromEntries(entries);
  const info = Object.fromEntries(entries.filter(([, result]) => result.status === 'up'));
  const error = Object.fromEntries(entries.filter(([, result]) => result.status === 'down'));
  return { status: Object.keys(error).length === 0 ? 'ok' : 'error', info, error, details };
}
