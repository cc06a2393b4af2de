/**
 * "The database could not be reached" → a retryable 503. While PostgreSQL restarts, a request meets a refused or
 * cut connection, a pool that cannot hand one out, or a server that is shutting down or starting up. Nothing was
 * committed (PostgreSQL rolls back a transaction whose connection is gone), so the request is safe to retry and
 * must not read as an internal error.
 */
import { ApiError } from '../../domain/platform/errors';

/** How long a client should wait before retrying: about one PostgreSQL restart on the test machine. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** SQLSTATEs: 57P01 admin_shutdown (pg_terminate_backend, fast shutdown), 57P02 crash_shutdown, 57P03 cannot_connect_now. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03']);

/** Socket errors of node-postgres' own connection (its errors keep the syscall's code). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);

/** node-postgres reports a connection that died under it by message only (no code). */
const LOST_CONNECTION_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Connection ended unexpectedly',
];

/**
 * Only the thrown error itself is inspected, never its `cause`: an HTTP call that failed to connect (fetch wraps
 * the socket error in its cause) is not the database. Errors from the pool (knex) and from node-postgres reach
 * here as they are or wrapped by MikroORM, which copies `code` onto its DriverException.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    // Class 08: connection exception (08000, 08003, 08006, 08001, 08004 …).
    if (/^08[0-9A-Z]{3}$/.test(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (SOCKET_CODES.has(code) && (error as { syscall?: unknown }).syscall !== undefined) return true;
  }
  // knex: "Knex: Timeout acquiring a connection. The pool is probably full."
  if (error.name === 'KnexTimeoutError' || error.message.startsWith('Knex: Timeout acquiring a connection'))
    return true;
  return LOST_CONNECTION_MESSAGES.some((message) => error.message.startsWith(message));
}

export function fromUnavailableDatabase(error: unknown): ApiError | undefined {
  if (!isDatabaseUnavailable(error)) return undefined;
  return new ApiError(
    503,
    'external_service_error',
    'DATABASE_UNAVAILABLE',
    'The service is temporarily unavailable; retry shortly',
    undefined,
    { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}
