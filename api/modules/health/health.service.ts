/**
 * Health checks of Document 1: each check reports up or down; the report is ok only when all are up.
 * Every check has a deadline so a hung dependency turns into "down", not a hung probe.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { pingDatabase } from '../../../db/repositories/health.repository';
import type { AppDeps } from '../../deps';
import { pingTemporal, workflowPollers, type Poller } from '../../temporal/connection';

const CHECK_TIMEOUT_MS = 2000;

/**
 * A live worker re-polls at least once a minute (Temporal ends an idle long poll after 60 s), but the server
 * keeps listing a dead worker's poller for minutes. Pollers not seen for longer than this are not counted.
 */
export const POLLER_FRESH_MS = 90_000;

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
  const namespace = deps.config.temporal.namespace;
  const database: Check = async () => {
    await withTimeout(pingDatabase(em), 'PostgreSQL');
  };
  const temporal: Check = async () => {
    await pingTemporal(deps.temporal, Date.now() + CHECK_TIMEOUT_MS);
  };
  const worker: Check = async () => {
    const pollers = await workflowPollers(deps.temporal, namespace, Date.now() + CHECK_TIMEOUT_MS);
    for (const [name, seen] of Object.entries(pollers)) {
      if (freshPollers(seen, Date.now()) === 0) throw new Error(`No worker is polling task queue ${name}`);
    }
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
