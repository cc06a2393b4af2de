/**
 * provider_c (Mercado Pago-like) lookups of an earlier request, with only what Mercado Pago offers: it keeps no
 * readable record of X-Idempotency-Key, so every payment and refund we create carries the key in its metadata
 * (KEY_METADATA) and our reference as external_reference:
 * - authorize / verify: payment search by external_reference (`GET /v1/payments/search`), the hit being the payment
 *   whose metadata holds our key (several attempts of one transaction share the reference);
 * - capture / void: the payment itself (`GET /v1/payments/:id`): still `authorized` = not processed;
 * - refund: the payment's refunds (`GET /v1/payments/:id/refunds`), matched on the metadata, read as they stand now
 *   (so a refund answered in_process settles by polling, not only by its notification).
 * The search does not see work in flight: a payment still being created when the search runs is not in it yet, so
 * its `not_found` means "never processed" only after the grace period the adapter's `reads` state.
 */
import {
  type LookupRequest,
  type LookupResult,
  type ProviderCall,
  type ProviderResult,
  ProviderUnreachableError,
} from '../connector';
import { field, type ProviderRequest, type ProviderResponse } from '../http';
import { KEY_METADATA, lookupReference } from '../lookup-reference';
import { fromPayment, fromRefund } from './transformers';

type Send = (request: ProviderRequest) => Promise<ProviderResponse | { failure: ProviderResult }>;

/** Search results read (newest first) before giving up as unknown. */
const SEARCH_LIMIT = 50;

export async function lookupRequest(
  send: Send,
  call: Pick<ProviderCall, 'idempotencyKey'>,
  request: LookupRequest,
): Promise<LookupResult> {
  try {
    switch (request.operation) {
      case 'authorize':
      case 'verify':
        return await lookupPayment(send, call.idempotencyKey, lookupReference(request));
      case 'capture':
      case 'void':
        return await lookupUpdate(send, request.operation, request.providerReference);
      case 'refund':
        return await lookupRefund(send, call.idempotencyKey, request.providerReference);
    }
  } catch (error) {
    if (error instanceof ProviderUnreachableError) return { status: 'unknown', rawCode: error.kind };
    throw error;
  }
}

async function lookupPayment(send: Send, key: string, reference: string | null): Promise<LookupResult> {
  if (!reference) return { status: 'unknown', rawCode: 'lookup_without_reference' };
  const searched = await send({
    method: 'GET',
    path: '/v1/payments/search',
    query: {
      external_reference: reference,
      sort: 'date_created',
      criteria: 'desc',
      limit: String(SEARCH_LIMIT),
    },
  });
  if ('failure' in searched) return { status: 'unknown', rawCode: searched.failure.rawCode };
  if (searched.status !== 200) return unknownAnswer(searched);
  const results = field.list(searched.body?.results);
  const hit = withKey(results, key);
  if (hit) return found(fromPayment({ status: 200, body: hit }));
  const total = field.num(field.obj(searched.body?.paging).total) ?? results.length;
  return total > results.length ? { status: 'unknown', rawCode: 'lookup_list_truncated' } : { status: 'not_found' };
}

/** A capture or void shows on the payment: `authorized` still means it was never processed. */
async function lookupUpdate(
  send: Send,
  operation: 'capture' | 'void',
  providerReference: string | undefined,
): Promise<LookupResult> {
  if (!providerReference) return { status: 'unknown', rawCode: 'lookup_without_payment' };
  const response = await send({ method: 'GET', path: `/v1/payments/${encodeURIComponent(providerReference)}` });
  if ('failure' in response) return { status: 'unknown', rawCode: response.failure.rawCode };
  if (response.status !== 200 || !response.body) return unknownAnswer(response);
  const status = field.str(response.body.status) ?? '';
  if (status === 'authorized') return { status: 'not_found' };
  const done = operation === 'capture' ? status === 'approved' || status === 'refunded' : status === 'cancelled';
  return {
    status: 'found',
    result: {
      outcome: done ? 'approved' : 'processing_error',
      providerReference: field.str(response.body.id),
      rawCode: field.str(response.body.status_detail) ?? status,
      rawMessage: status,
    },
  };
}

async function lookupRefund(send: Send, key: string, providerReference: string | undefined): Promise<LookupResult> {
  if (!providerReference) return { status: 'unknown', rawCode: 'lookup_without_payment' };
  const response = await send({
    method: 'GET',
    path: `/v1/payments/${encodeURIComponent(providerReference)}/refunds`,
  });
  if ('failure' in response) return { status: 'unknown', rawCode: response.failure.rawCode };
  if (response.status !== 200) return unknownAnswer(response);
  // Mercado Pago answers the refunds of a payment with a bare JSON array.
  const hit = withKey(response.list ?? [], key);
  return hit ? found(fromRefund({ status: 200, body: hit })) : { status: 'not_found' };
}

function withKey(items: unknown[], key: string): Record<string, unknown> | null {
  for (const item of items) {
    const object = field.obj(item);
    if (field.obj(object.metadata)[KEY_METADATA] === key) return object;
  }
  return null;
}

function found(result: ProviderResult): LookupResult {
  return result.outcome === 'unknown' ? { status: 'unknown', rawCode: result.rawCode } : { status: 'found', result };
}

function unknownAnswer(response: ProviderResponse): LookupResult {
  return { status: 'unknown', rawCode: `lookup_http_${response.status}` };
}
