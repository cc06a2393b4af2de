/**
 * provider_b (Adyen-like): what Adyen's Checkout API offers for a request whose answer was lost. It has no read at
 * all — no payment by pspReference, by merchant reference or by idempotency key; its answers are the API response
 * and the notification webhooks. Its tools for a lost answer are (1) resending the very same request under the same
 * Idempotency-Key (the first response is returned, nothing is done twice) — impossible here, the lookup holds no
 * card data — and (2) the technical cancel: `POST /v71/cancels {paymentReference: <our merchant reference>}` cancels
 * the authorisation made under that reference, if any; Adyen answers `received` at once and reports the result in a
 * TECHNICAL_CANCEL notification. A cancel only releases an authorisation that was not captured.
 *
 * So an unknown authorize/verify is resolved by issuing the technical cancel (under its own idempotency key, so a
 * repeated lookup does not cancel twice), and read as:
 * - `received` for a verification, or for an authorization we know was not auto-captured (request.capture false):
 *   whatever Adyen made is being cancelled and nothing was taken → not_found (the attempt did not charge);
 * - `received` for a charge that may have been auto-captured (capture true or not said): a capture cannot be
 *   cancelled, so the money may be taken → unknown (no cascade: the charge fails, the attempt stays
 *   provider_outcome_unknown);
 * - no answer, a 5xx, a refusal → unknown.
 * Such an attempt is decided by Adyen's AUTHORISATION notification, which it sends for every payment it decided
 * (pspReference, our merchant reference, success): the inbound webhook keeps its verdict on the attempt
 * (domain/provider-webhooks/provider-webhooks.attempt-verdicts.ts) and the reconciler acts on it instead of this
 * lookup — refunds the charge by its pspReference (voids it when not captured), or settles it as not charged.
 * Captures, voids and refunds cannot be read either: unknown (their CAPTURE / CANCELLATION / REFUND notifications
 * settle them).
 */
import { type LookupRequest, type LookupResult, type ProviderCall, ProviderUnreachableError } from '../connector';
import { field, type ProviderRequest, type ProviderResponse } from '../http';
import { lookupReference } from '../lookup-reference';

type Send = (
  request: ProviderRequest & { json: Record<string, unknown> },
  idempotencyKey: string,
) => Promise<ProviderResponse>;

/** The technical cancel's own idempotency key and reference (Adyen: ≤ 64 and ≤ 80 characters). */
export const technicalCancelKey = (key: string) => `${key}:tc`;

export async function lookupRequest(
  send: Send,
  call: Pick<ProviderCall, 'idempotencyKey'>,
  request: LookupRequest,
): Promise<LookupResult> {
  if (request.operation !== 'authorize' && request.operation !== 'verify')
    return { status: 'unknown', rawCode: 'no_read_at_provider' };
  const reference = lookupReference(request);
  if (!reference) return { status: 'unknown', rawCode: 'lookup_without_reference' };
  let response: ProviderResponse;
  try {
    response = await send(
      {
        method: 'POST',
        path: '/v71/cancels',
        json: { paymentReference: reference, reference: technicalCancelKey(call.idempotencyKey) },
      },
      technicalCancelKey(call.idempotencyKey),
    );
  } catch (error) {
    if (error instanceof ProviderUnreachableError) return { status: 'unknown', rawCode: error.kind };
    throw error;
  }
  if (response.status !== 201 || field.str(response.body?.status) !== 'received')
    return { status: 'unknown', rawCode: `technical_cancel_http_${response.status}` };
  const nothingCaptured = request.operation === 'verify' || request.capture === false;
  return nothingCaptured ? { status: 'not_found' } : { status: 'unknown', rawCode: 'technical_cancel_received' };
}
