import pino, { type DestinationStream, type Logger } from 'pino';

/** Structured logs; credentials and card fields are redacted even if someone logs a whole request. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'switchyard' },
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
