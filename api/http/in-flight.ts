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
  const running = new Set<Promise<void>>();
  let closing = false;
  return {
    async middleware(ctx, next) {
      if (closing) ctx.set('Connection', 'close');
      const work = next();
      // The settled copy is what drain() waits on; the request's own failure still propagates to Koa below.
      const settled = work.then(
        () => undefined,
        () => undefined,
      );
      running.add(settled);
      try {
        await work;
      } finally {
        running.delete(settled);
      }
    },
    closing() {
      closing = true;
    },
    async drain(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      try {
        // Requests may still arrive on kept-alive sockets while the first ones finish: wait for those too.
        while (running.size > 0) {
          if ((await Promise.race([Promise.all([...running]).then(() => true), expired])) === false) return false;
        }
        return true;
      } finally {
        clearTimeout(timer);
      }
    },
    get count() {
      return running.size;
    },
  };
}
