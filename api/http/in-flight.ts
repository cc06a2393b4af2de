/**
 * The requests the API is running, so a stop can wait for them. A handler keeps running after its client went
 * away (the socket closes, the server forgets it), so the server's own close() is not enough: closing Temporal
 * or the ORM under such a handler ends in "Channel has been shut down" thrown from a gRPC retry timer.
 */
import type { Context, Next } from 'koa';

export interface InFlightRequests {
  /** Outermost middleware: counts a request from its first byte to its last middleware. */
  middleware(ctx: Context, next: Next): Promise<void>;
  /** From now on every answer closes its connection (a kept-alive client reconnects to another instance). */
  closing(): void;
  /** Resolves true once no request runs, or false after `timeoutMs` with some still running. */
  drain(timeoutMs: number): Promise<boolean>;
  readonly count: number;
}

export function inFlightRequests(): InFlightRequests {
  let running = 0;
  let closing = false;
  /** drain()s waiting for the count to reach zero. */
  let idle: Array<() => void> = [];
  return {
    // A counter, not a set of promises: per request this is one await, no promise or set entry of its own.
    async middleware(ctx, next) {
      if (closing) ctx.set('Connection', 'close');
      running += 1;
      try {
        await next();
      } finally {
        running -= 1;
        if (running === 0) {
          const waiting = idle;
          idle = [];
          for (const wake of waiting) wake();
        }
      }
    },
    closing() {
      closing = true;
    },
    async drain(timeoutMs) {
      // Requests may still arrive on kept-alive sockets while the first ones finish: this waits until none runs.
      if (running === 0) return true;
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      try {
        return await Promise.race([new Promise<true>((resolve) => idle.push(() => resolve(true))), expired]);
      } finally {
        clearTimeout(timer);
      }
    },
    get count() {
      return running;
    },
  };
}
