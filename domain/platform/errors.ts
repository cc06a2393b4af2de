/**
 * The closed error vocabulary of Document 1. Only ApiError reaches a client; anything else thrown is
 * turned into internal_server_error by the error middleware, with internals kept in the server log.
 */
export type ErrorType =
  | 'validation_error'
  | 'bad_request_error'
  | 'authentication_error'
  | 'authorization_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'business_rule_error'
  | 'rate_limit_error'
  | 'internal_server_error'
  | 'external_service_error';

export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
    /** Extra response headers (Retry-After, Allow …). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** Field name → messages, as Document 1 requires for validation errors. */
export type FieldErrors = Record<string, string[]>;

export const errors = {
  validation: (details: FieldErrors, message = 'The request failed validation', code = 'INVALID_FIELD') =>
    new ApiError(400, 'validation_error', code, message, details),
  invalidValue: (field: string, message: string) =>
    new ApiError(400, 'validation_error', 'INVALID_VALUE', message, { [field]: [message] }),
  badRequest: (code: string, message: string, status = 400, headers?: Record<string, string>) =>
    new ApiError(status, 'bad_request_error', code, message, undefined, headers),
  unauthenticated: (message = 'A valid API key is required') =>
    new ApiError(401, 'authentication_error', 'INVALID_CREDENTIALS', message),
  forbidden: (message: string) => new ApiError(403, 'authorization_error', 'INSUFFICIENT_PERMISSIONS', message),
  notFound: (message = 'The resource does not exist', code = 'RESOURCE_NOT_FOUND') =>
    new ApiError(404, 'not_found_error', code, message),
  conflict: (code: string, message: string, details?: ErrorDetails) =>
    new ApiError(409, 'conflict_error', code, message, details),
  businessRule: (code: string, message: string, details?: ErrorDetails) =>
    new ApiError(422, 'business_rule_error', code, message, details),
  rateLimited: (retryAfterSeconds: number, message = 'Too many requests for this API key') =>
    new ApiError(429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED', message, undefined, {
      'Retry-After': String(retryAfterSeconds),
    }),
  internal: () => new ApiError(500, 'internal_server_error', 'INTERNAL_ERROR', 'An unexpected error occurred'),
};
