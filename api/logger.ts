import pino, { type Logger } from 'pino';

/** Structured logs; credentials and card fields are redacted even if someone logs a whole request. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'switchyard' },
    redact: {
      paths: [
        'req.headers.authorization', 'req.headers["x-public-key"]', 'headers.authorization',
        '*.card_number', '*.cvc', '*.cvv', '*.document_number', '*.password', '*.secret', '*.credentials',
      ],
      censor: '[redacted]',
    },
  });
}
