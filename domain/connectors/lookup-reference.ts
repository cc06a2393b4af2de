/**
 * Our merchant reference for a lookup at the providers that find a payment only by it (Adyen's technical cancel,
 * Mercado Pago's search by external_reference, Checkout.com's payments by reference). The caller should say it
 * (LookupRequest.reference); until every caller does, it is read from the idempotency key, whose shapes are fixed by
 * the workflows that send: a charge attempt `charge-<tx id>:<attempt>` (workflows/charge.ts chargeWorkflowId; the
 * reconciler rebuilds the same key) and a refund operation `refund-<refund id>` (operationWorkflowId). Any other key
 * (a card enrolment's verification) has no readable reference: the lookup cannot tell (unknown), never not_found.
 */
import type { LookupRequest, ProviderCall } from './connector';

const CHARGE_KEY = /^charge-(tx_[A-Za-z0-9_-]+):\d+$/;
const REFUND_KEY = /^refund-(ref_[A-Za-z0-9_-]+)$/;

export function lookupReference(call: Pick<ProviderCall, 'idempotencyKey'>, request: LookupRequest): string | null {
  if (request.reference) return request.reference;
  const pattern = request.operation === 'refund' ? REFUND_KEY : CHARGE_KEY;
  return pattern.exec(call.idempotencyKey)?.[1] ?? null;
}

/** The metadata key under which our idempotency key travels on payments and refunds that take metadata. */
export const KEY_METADATA = 'switchyard_idempotency_key';
