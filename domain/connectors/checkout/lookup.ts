/**
 * checkout (Checkout.com-like) lookups of an earlier request, with only what Checkout.com offers: it keeps no
 * readable record of Cko-Idempotency-Key, so every payment we create carries the key in its metadata (KEY_METADATA)
 * besides our reference:
 * - authorize / verify: the payments list by reference (`GET /payments?reference=`), the hit being the payment whose
 *   metadata holds our key (several attempts of one transaction share the reference);
 * - capture / void / refund: the payment's actions (`GET /payments/:id/actions`), which list every processed
 *   capture, void and refund with its `approved` flag and response code; a refund is the action carrying our refund
 *   reference, read as it stands now (so a refund answered 202 settles by polling, not only by its webhook).
 * Neither read sees work in flight: the payments list lags behind a payment being created, and a capture, void or
 * refund is listed only once decided. So `not_found` here is "not listed yet"; the adapter's `reads` say after how
 * long that means "never processed".
 */
import {
  type LookupRequest,
  type LookupResult,
  type ProviderCall,
  type ProviderResult,
  ProviderUnreachableError,
} from '../connector';
import { field, result, type ProviderRequest, type ProviderResponse } from '../http';
import { KEY_METADATA, lookupReference } from '../lookup-reference';
import { fromPayment, responseCodeOutcome } from './transformers';

type Send = (request: ProviderRequest) => Promise<ProviderResponse>;

const PAGE_SIZE = 100;

/** Our operation → Checkout.com's action type in GET /payments/:id/actions. */
const ACTION_TYPES = { capture: 'Capture', void: 'Void', refund: 'Refund' } as const;

export async function lookupRequest(
  send: Send,
  call: Pick<ProviderCall, 'idempotencyKey'>,
  request: LookupRequest,
): Promise<LookupResult> {
  try {
    if (request.operation === 'authorize' || request.operation === 'verify')
      return await lookupPayment(send, call.idempotencyKey, lookupReference(request));
    return await lookupAction(send, request.operation, request.providerReference, lookupReference(request));
  } catch (error) {
    if (error instanceof ProviderUnreachableError) return { status: 'unknown', rawCode: error.kind };
    throw error;
  }
}

async function lookupPayment(send: Send, key: string, reference: string | null): Promise<LookupResult> {
  if (!reference) return { status: 'unknown', rawCode: 'lookup_without_reference' };
  const listed = await send({ method: 'GET', path: '/payments', query: { reference, limit: String(PAGE_SIZE) } });
  if (listed.status !== 200) return unknownAnswer(listed);
  const data = field.list(listed.body?.data).map(field.obj);
  const hit = data.find((payment) => field.obj(payment.metadata)[KEY_METADATA] === key);
  if (hit) return found(fromPayment({ status: 200, body: hit }));
  const total = field.num(listed.body?.total_count) ?? data.length;
  return total > data.length ? { status: 'unknown', rawCode: 'lookup_list_truncated' } : { status: 'not_found' };
}

/** A decided capture, void or refund is one of the payment's actions; none of its type = not listed (yet). */
async function lookupAction(
  send: Send,
  operation: 'capture' | 'void' | 'refund',
  paymentId: string | undefined,
  reference: string | null,
): Promise<LookupResult> {
  if (!paymentId) return { status: 'unknown', rawCode: 'lookup_without_payment' };
  if (operation === 'refund' && !reference) return { status: 'unknown', rawCode: 'lookup_without_reference' };
  const response = await send({ method: 'GET', path: `/payments/${encodeURIComponent(paymentId)}/actions` });
  if (response.status !== 200 || !response.list) return unknownAnswer(response);
  const actions = response.list.map(field.obj).filter((action) => action.type === ACTION_TYPES[operation]);
  const hit = operation === 'refund' ? actions.find((action) => field.str(action.reference) === reference) : actions[0];
  if (!hit) return { status: 'not_found' };
  return found(fromActionRecord(hit, operation, paymentId));
}

/** One entry of the actions list → the operation's outcome (a refused refund is final: hard_decline). */
export function fromActionRecord(
  action: Record<string, unknown>,
  operation: 'capture' | 'void' | 'refund',
  paymentId: string,
): ProviderResult {
  const code = field.str(action.response_code);
  const approved = action.approved === true;
  const refused = operation === 'refund' ? 'hard_decline' : code ? responseCodeOutcome(code) : 'processing_error';
  return result(approved ? 'approved' : refused === 'approved' ? 'processing_error' : refused, {
    providerReference: operation === 'refund' ? field.str(action.id) : paymentId,
    rawCode: code ?? (approved ? 'approved' : 'declined'),
    rawMessage: field.str(action.response_summary),
  });
}

function found(read: ProviderResult): LookupResult {
  return read.outcome === 'unknown' ? { status: 'unknown', rawCode: read.rawCode } : { status: 'found', result: read };
}

function unknownAnswer(response: ProviderResponse): LookupResult {
  return { status: 'unknown', rawCode: `lookup_http_${response.status}` };
}
