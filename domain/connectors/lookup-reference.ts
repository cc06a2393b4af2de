/**
 * Our merchant reference for a lookup at the providers that find a payment only by it (Adyen's technical cancel,
 * Mercado Pago's search by external_reference, Checkout.com's payments by reference): what the caller says the
 * original request carried (LookupRequest.reference). Never parsed back out of an idempotency key, whose shape
 * belongs to the workflows. An empty reference is a lookup that cannot tell (unknown), never not_found.
 */
import type { LookupRequest } from './connector';

export function lookupReference(request: LookupRequest): string | null {
  return request.reference || null;
}

/** The metadata key under which our idempotency key travels on payments and refunds that take metadata. */
export const KEY_METADATA = 'switchyard_idempotency_key';
