import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * PostgreSQL error fields that quote row values ("Key (email)=(ana@example.com) already exists", "Failing row
 * contains (…)"): an error is logged without them. db/orm.ts already strips them (and the SQL) from query
 * errors; this covers errors that did not come through the ORM.
 */
const VALUE_BEARING_ERROR_FIELDS = ['detail', 'where', 'internalQuery', 'parameters', 'bindings'];

function serializeError(error: Error): unknown {
  const serialized = pino.stdSerializers.err(error) as unknown;
  // Not error-like: pino passes it through as is, and it is not ours to modify.
  if (serialized === error || typeof serialized !== 'object' || serialized === null) return serialized;
  // Only the objects the serializer built (the error and its aggregated errors), never the caller's own objects.
  const built = serialized as Record<string, unknown> & { aggregateErrors?: Record<string, unknown>[] };
  for (const target of [built, ...(built.aggregateErrors ?? [])])
    for (const field of VALUE_BEARING_ERROR_FIELDS) delete target[field];
  return built;
}

/** Structured logs; credentials and card fields are redacted even if someone logs a whole request. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'switchyard' },
    serializers: { err: serializeError },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-public-key"]',
        'headers.authorization',
        '*.card_number',
        '*.cvc',
        '*.cvv',
        '*.document_number',
        '*.password',
        '*.secret',
        '*.credentials',
        '*.webhook_secret',
      ],
      censor: '[redacted]',
    },
  };
  // A destination (tests capture the log in memory) or stdout, written asynchronously: a request never waits for
  // a write(2). pino flushes what is buffered when the process exits; flushLogger() does it on a clean stop.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

/** Writes out whatever the logger still buffers (a no-op for synchronous destinations). */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}
