import { Context } from '@temporalio/activity';

/**
 * Heartbeats while a provider call is in flight. The workflows give these activities a short heartbeat timeout,
 * so when the worker dies mid-call Temporal retries the activity (same provider idempotency key) within seconds
 * instead of waiting out the whole start-to-close timeout.
 */
export async function heartbeatWhile<T>(work: () => Promise<T>, everyMs = 2000): Promise<T> {
  const context = Context.current();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
