/**
 * A worker that starts while PostgreSQL or Temporal is restarting (a deploy, a host reboot, docker-compose starting
 * everything at once) waits for them instead of exiting: each step of the start is retried with backoff, for a
 * bounded time, so a dependency that never comes back still ends the process visibly (exitOnFatal) rather than
 * leaving it hanging.
 */
import type { Logger } from 'pino';

export interface StartupRetry {
  /** Give up (the step's last error is thrown) once this long has passed since the first try. */
  withinMs: number;
  logger: Logger;
  /** The first wait between tries; doubled each time up to maxDelayMs. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/** Runs `step` until it succeeds; between failures waits 0.5 s, 1 s, 2 s… (capped at 5 s), up to `withinMs` in all. */
export async function retryingStartup<T>(what: string, step: () => Promise<T>, retry: StartupRetry): Promise<T> {
  const giveUpAt = Date.now() + retry.withinMs;
  let delay = retry.firstDelayMs ?? 500;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await step();
    } catch (error) {
      if (Date.now() + delay > giveUpAt) throw error;
      retry.logger.warn({ err: error, attempt, retryInMs: delay }, `Worker start: ${what} is unreachable; retrying`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, retry.maxDelayMs ?? 5_000);
    }
  }
}
