/**
 * The delivery status words of the API. Document 1 names them "success and failed" ("Delivery status values
 * beyond success and failed … not shown"); the store and the delivery workflow say `succeeded` (their histories
 * and rows keep it), so the API translates at its edge: responses say `success`, and the `status` filter takes
 * `success` and, for a deprecation period, the old `succeeded` (docs/api-decisions.md, "Delivery statuses").
 */
import type { DeliveryStatus } from '../../../db/entities';

/** What a delivery record's `status` says: success (2xx), retrying (another attempt scheduled), failed (final). */
export const API_DELIVERY_STATUSES = ['success', 'retrying', 'failed'] as const;
export type ApiDeliveryStatus = (typeof API_DELIVERY_STATUSES)[number];

/** Values the list filter accepts: the API's words plus `succeeded`, deprecated (the API's earlier word). */
export const DELIVERY_STATUS_FILTER_VALUES = [...API_DELIVERY_STATUSES, 'succeeded'] as const;

export const apiDeliveryStatus = (stored: DeliveryStatus): ApiDeliveryStatus =>
  stored === 'succeeded' ? 'success' : stored;

/** The stored statuses a `status` filter selects (success and succeeded select the same records). */
export const storedDeliveryStatuses = (values: readonly string[]): DeliveryStatus[] => [
  ...new Set(values.map((value) => (value === 'success' ? 'succeeded' : (value as DeliveryStatus)))),
];
