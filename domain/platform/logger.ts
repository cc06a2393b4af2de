import pino, { type DestinationStream, type Logger } from 'pino';
import { trace } from '@opentelemetry/api';

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
    // A line written during a traced request or activity names its trace (domain/platform/tracing.ts), sampled or
    // not: an unsampled trace is in no collector, but its id still joins the API's and the worker's lines of one charge.
    mixin: () => {
      const span = trace.getActiveSpan();
      return span ? { trace_id: span.spanContext().traceId } : {};
    },
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
  // A destination (tests capture the log in memory) or stdout, written asynchronously and in batches.
  return pino(options, destination ?? logDestination(1));
}

/** Bytes of log lines gathered before one write: a line costs a write(2) only when the process is quiet. */
export const LOG_BATCH_BYTES = 4096;
/** The longest a line waits in the batch. */
export const LOG_BATCH_MS = 1000;

/**
 * Where logs go by default: asynchronous (a request never waits for a write(2)) and batched (one write per
 * LOG_BATCH_BYTES instead of one per line: the per-line write was ~9 % of a liveness probe's CPU, docs/benchmarks.md),
 * flushed at least every LOG_BATCH_MS. pino flushes what is left when the process exits; flushLogger() does it on a
 * clean stop.
 */
export function logDestination(dest: number | string): pino.DestinationStream & { flush(): void } {
  const stream = pino.destination({ dest, sync: false, minLength: LOG_BATCH_BYTES });
  setInterval(() => {
    // After the logger is closed a flush would throw (sonic-boom sets `destroyed`; its types omit it).
    if (!(stream as unknown as { destroyed: boolean }).destroyed) stream.flush();
  }, LOG_BATCH_MS).unref();
  return stream;
}

/** Writes out whatever the logger still buffers (a no-op for synchronous destinations). */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}
