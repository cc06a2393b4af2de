/**
 * A charge or an operation whose workflow outlived the request's wait (WORKFLOW_WAIT_MS): the work goes on, so
 * once it has been accepted (its rows exist) the request answers the resource as it stands, never a 5xx.
 */
import { ApiError } from '../../../domain/platform/errors';

export const isStillProcessing = (error: unknown, code: 'CHARGE_STILL_PROCESSING' | 'OPERATION_STILL_PROCESSING') =>
  error instanceof ApiError && error.code === code;
