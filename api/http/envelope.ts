/** The three response shapes of Document 1: wrapped success, bare, and the error envelope. */
import type { ApiError } from '../../domain/platform/errors';

export function timestamp(date = new Date()): string {
  return date.toISOString();
}

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
