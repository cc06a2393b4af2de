/**
 * The measured processes of one bench run, besides the stack (PostgreSQL, Temporal, the worker in the bench's own
 * process): the load generator, the API configured for production, and the baselines (bare Koa, bare Koa + pg),
 * each in a process of its own (child.ts).
 */
import type autocannon from 'autocannon';
import { startChild, type Child } from './child';
import { productionEnv } from './api';
import type { BaselineUrls } from './baselines';
import type { LoadResult } from './load-generator';

export interface LoadGenerator {
  run(options: autocannon.Options): Promise<LoadResult>;
  stop(): Promise<void>;
}

export async function startLoadGenerator(): Promise<LoadGenerator> {
  const child = await startChild<unknown>('load-generator');
  return { run: (options) => child.ask<LoadResult>(options), stop: () => child.stop() };
}

/** A CPU profile of the process alone while `during` runs. */
type Profiler = <T>(during: () => Promise<T>) => Promise<{ result: T; profile: object }>;

const profilerOf =
  (child: Child<unknown>): Profiler =>
  async (during) => {
    await child.ask('profile-start');
    const result = await during();
    const { profile } = await child.ask<{ profile: object }>('profile-stop');
    return { result, profile };
  };

export interface ApiProcess {
  url: string;
  pid: number;
  profile: Profiler;
  stop(): Promise<void>;
}

/** The API as docker-compose runs it, on the stack's database and Temporal. */
export async function startApiProcess(stackEnv: NodeJS.ProcessEnv): Promise<ApiProcess> {
  const child = await startChild<{ url: string }>('api', { env: productionEnv(stackEnv), quiet: true });
  return {
    url: child.ready.url,
    pid: child.process.pid as number,
    profile: profilerOf(child),
    stop: () => child.stop(),
  };
}

export async function startBaselines(
  databaseUrl: string,
): Promise<BaselineUrls & { pid: number; profile: Profiler; stop(): Promise<void> }> {
  const child: Child<BaselineUrls> = await startChild<BaselineUrls>('baselines', {
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return { ...child.ready, pid: child.process.pid as number, profile: profilerOf(child), stop: () => child.stop() };
}
