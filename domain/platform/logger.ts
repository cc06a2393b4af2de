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
  // A destination (tests capture the log in memory) or pino's default, stdout.
  return destination ? pino(options, destination) : pino(options);
}
