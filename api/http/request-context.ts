/**
 * What every request carries through the app: its req_ id (body and X-Request-Id header) and its one structured log
 * line, its place in the count of running requests (a stop drains them), the headers of every /api/v1 answer, and the
 * envelope it is answered in: the outermost middleware turns every failure into the error envelope.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { newId } from '../../domain/platform/ids';
import { ApiError, errors } from '../../domain/platform/errors';
import { fromUnreachableTemporal } from '../temporal/connection';
import { fromUnavailableDatabase } from './db-unavailable';

/* The response shapes of Document 1: the wrapped success and the error envelope (a bare answer is its data). */
const timestamp = (): string => new Date().toISOString();

export function wrapped(data: unknown, requestId: string, meta?: unknown): Record<string, unknown> {
  return {
    success: true,
    data,
    ...(meta === undefined ? {} : { meta }),
    request_id: requestId,
    timestamp: timestamp(),
  };
}

export function errorBody(error: ApiError, requestId: string): Record<string, unknown> {
  return {
    error: {
      type: error.type,
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
      request_id: requestId,
      timestamp: timestamp(),
    },
  };
}

/*
 * The requests the API is running, so a stop can wait for them. A handler keeps running after its client went
 * away (the socket closes, the server forgets it), so the server's own close() is not enough: closing Temporal
 * or the ORM under such a handler ends in "Channel has been shut down" thrown from a gRPC retry timer.
 */
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

/**
 * Every /api/v1 answer (errors included) carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`:
 * token pairs, signing secrets, API keys shown once and customer data must never sit in a browser or proxy cache
 * (RFC 6749 §5.1 for tokens), and JSON must never be sniffed into something a browser runs. Set before the route runs,
 * so the error envelope keeps them.
 */
export function apiResponseHeaders(prefix: string) {
  // Passes next()'s promise on rather than awaiting it: one promise less per request.
  return (ctx: Context, next: Next) => {
    if (ctx.path === prefix || ctx.path.startsWith(`${prefix}/`)) {
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
    }
    return next();
  };
}

/** Errors raised by the body parser (co-body) and the router carry an HTTP status and a type. */
function fromFrameworkError(error: {
  status?: number;
  type?: string;
  code?: string;
  message?: string;
}): ApiError | undefined {
  // co-body reports a JSON parse failure (and, in strict mode, a top-level primitive) as a SyntaxError
  // with status 400 and no `type`.
  if (error.status === 400 && error instanceof SyntaxError) {
    return errors.badRequest('MALFORMED_JSON', 'The request body is not valid JSON');
  }
  // inflation (under co-body) rejects an unknown Content-Encoding with status 415 and no `type`.
  if (error.status === 415 && error.message?.startsWith('Unsupported Content-Encoding')) {
    return errors.badRequest('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported', 415);
  }
  // zlib: a body that does not decode with its declared Content-Encoding.
  if (typeof error.code === 'string' && error.code.startsWith('Z_')) {
    return errors.badRequest('BAD_REQUEST', 'The request body could not be decoded');
  }
  switch (error.type) {
    case 'entity.parse.failed':
      return errors.badRequest('MALFORMED_JSON', 'The request body is not valid JSON');
    case 'entity.too.large':
      return errors.badRequest('PAYLOAD_TOO_LARGE', 'The request body is too large', 413);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return errors.badRequest('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported', 415);
    case 'request.aborted':
    case 'request.size.invalid':
      return errors.badRequest('BAD_REQUEST', 'The request body could not be read');
  }
  return undefined;
}

/** Outermost of the request log: the request's id, its log line, and every failure as the error envelope. */
export function requestContext(logger: Logger) {
  // The request line holds only the request id, method, path (never the query), status and duration, none of which
  // is a field the logger redacts: it is written without the redaction pass, which cost ten times the rest of the
  // line. Error lines keep the logger's redaction (an error may carry anything).
  const requestLog = logger.child({}, { redact: [] });
  return async (ctx: Context, next: Next) => {
    const requestId = newId('req');
    const started = process.hrtime.bigint();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } catch (thrown) {
      const unavailable = thrown instanceof ApiError ? undefined : fromUnavailableDatabase(thrown);
      const error =
        thrown instanceof ApiError
          ? thrown
          : (fromFrameworkError(thrown as object) ?? fromUnreachableTemporal(thrown) ?? unavailable);
      // Operators still see that requests are failing on the database (the message names no row values: db/orm.ts).
      if (unavailable) logger.warn({ err: thrown, request_id: requestId }, 'database unavailable');
      if (error) {
        ctx.status = error.status;
        ctx.body = errorBody(error, requestId);
        if (error.headers) ctx.set(error.headers);
      } else {
        // Internals stay in the server log; the client gets the request id to quote.
        logger.error({ err: thrown, request_id: requestId }, 'unhandled error');
        ctx.status = 500;
        ctx.body = errorBody(errors.internal(), requestId);
      }
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      requestLog.info(
        { request_id: requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    }
  };
}
