/**
 * Outermost middleware: gives every request a req_ id (body and X-Request-Id header), turns every
 * failure into the error envelope, and writes one structured log line per request.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { newId } from '../../domain/platform/ids';
import { errorBody } from './envelope';
import { ApiError, errors } from '../../domain/platform/errors';
import { fromUnreachableTemporal } from '../temporal/connection';
import { fromUnavailableDatabase } from './db-unavailable';

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
