/**
 * provider_a (Stripe-like) lookups of an earlier request by its idempotency key, with only what Stripe offers:
 * Stripe keeps no readable record of idempotency keys, so every intent and refund we create carries the key in its
 * metadata (LOOKUP_KEY) and is found by it:
 * - authorize: PaymentIntent search on the metadata (`GET /v1/payment_intents/search`). Search is eventually
 *   consistent (Stripe: "searchable in under 1 minute"), so an empty search is confirmed by the strongly consistent
 *   list of the PaymentIntents created in the last RECENT_WINDOW_S before it counts as not found;
 * - verify: SetupIntents have no search: the recent list only;
 * - capture / void: the PaymentIntent itself (`GET /v1/payment_intents/:id`) shows whether it was captured/canceled;
 * - refund: the PaymentIntent's refunds (`GET /v1/refunds?payment_intent=`), matched on the metadata.
 */
import {
  type LookupRequest,
  type LookupResult,
  type ProviderCall,
  type ProviderResult,
  ProviderUnreachableError,
} from '../connector';
import { field, type ProviderRequest, type ProviderResponse } from '../http';
import { fromIntent, fromModification, fromRefund } from './transformers';

/** The metadata key under which our idempotency key travels on every PaymentIntent, SetupIntent and refund. */
export const LOOKUP_KEY = 'switchyard_idempotency_key';

/** How far back the list confirms an empty search (well past Stripe's normal indexing delay). */
export const RECENT_WINDOW_S = 15 * 60;
/** Pages of 100 read before giving up as unknown (a busy account creates more in the window than we read). */
const MAX_PAGES = 5;

type Send = (request: ProviderRequest) => Promise<ProviderResponse>;

/** Stripe's search query for a metadata value: single-quoted, with quotes and backslashes escaped. */
export function metadataQuery(key: string): string {
  return `metadata['${LOOKUP_KEY}']:'${key.replace(/[\\']/g, (char) => `\\${char}`)}'`;
}

export async function lookupRequest(
  send: Send,
  call: Pick<ProviderCall, 'idempotencyKey'>,
  request: LookupRequest,
  now = Date.now(),
): Promise<LookupResult> {
  try {
    switch (request.operation) {
      case 'authorize':
        return await lookupIntent(send, call.idempotencyKey, now);
      case 'verify':
        return await lookupRecent(send, '/v1/setup_intents', call.idempotencyKey, now, (body) =>
          found(fromIntent({ status: 200, body }, 'setup_intent')),
        );
      case 'capture':
      case 'void':
        return await lookupModification(send, request.operation, request.providerReference);
      case 'refund':
        return await lookupRefund(send, call.idempotencyKey, request.providerReference);
    }
  } catch (error) {
    if (error instanceof ProviderUnreachableError) return { status: 'unknown', rawCode: error.kind };
    throw error;
  }
}

async function lookupIntent(send: Send, key: string, now: number): Promise<LookupResult> {
  const searched = await send({
    method: 'GET',
    path: '/v1/payment_intents/search',
    query: { query: metadataQuery(key), limit: '10' },
  });
  if (searched.status !== 200) return unknownAnswer(searched);
  const hit = matching(searched.body?.data, key);
  if (hit) return foundIntent(hit);
  return lookupRecent(send, '/v1/payment_intents', key, now, foundIntent);
}

/** An intent still requires_confirmation is the original request still running: nothing to read yet. */
function foundIntent(intent: Record<string, unknown>): LookupResult {
  if (intent.status === 'requires_confirmation') return { status: 'unknown', rawCode: 'in_progress' };
  return found(fromIntent({ status: 200, body: intent }, 'payment_intent'));
}

/** The strongly consistent list of what was created in the window, newest first, read page by page. */
async function lookupRecent(
  send: Send,
  path: string,
  key: string,
  now: number,
  read: (body: Record<string, unknown>) => LookupResult,
): Promise<LookupResult> {
  const since = String(Math.floor(now / 1000) - RECENT_WINDOW_S);
  return pagedLookup(send, path, { 'created[gte]': since }, key, read);
}

async function pagedLookup(
  send: Send,
  path: string,
  filter: Record<string, string>,
  key: string,
  read: (body: Record<string, unknown>) => LookupResult,
): Promise<LookupResult> {
  let startingAfter: string | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const listed = await send({
      method: 'GET',
      path,
      query: { ...filter, limit: '100', ...(startingAfter ? { starting_after: startingAfter } : {}) },
    });
    if (listed.status !== 200) return unknownAnswer(listed);
    const data = field.list(listed.body?.data);
    const hit = matching(data, key);
    if (hit) return read(hit);
    if (listed.body?.has_more !== true) return { status: 'not_found' };
    startingAfter = field.str(field.obj(data[data.length - 1]).id);
    if (!startingAfter) break;
  }
  return { status: 'unknown', rawCode: 'lookup_list_truncated' };
}

/** A capture or void shows on the PaymentIntent: still requires_capture means it was never processed. */
async function lookupModification(
  send: Send,
  operation: 'capture' | 'void',
  providerReference: string | undefined,
): Promise<LookupResult> {
  if (!providerReference) return { status: 'unknown', rawCode: 'lookup_without_payment' };
  const response = await send({ method: 'GET', path: `/v1/payment_intents/${encodeURIComponent(providerReference)}` });
  if (response.status !== 200 || !response.body) return unknownAnswer(response);
  const status = field.str(response.body.status);
  if (status === 'requires_capture') return { status: 'not_found' };
  if (status === 'processing') return { status: 'unknown', rawCode: status };
  return found(fromModification(response, operation === 'capture' ? 'succeeded' : 'canceled'));
}

async function lookupRefund(send: Send, key: string, providerReference: string | undefined): Promise<LookupResult> {
  if (!providerReference) return { status: 'unknown', rawCode: 'lookup_without_payment' };
  return pagedLookup(send, '/v1/refunds', { payment_intent: providerReference }, key, (body) =>
    found(fromRefund({ status: 200, body })),
  );
}

/** The object carrying our key in its metadata (a search or list may return others: never trusted blindly). */
function matching(data: unknown, key: string): Record<string, unknown> | null {
  for (const item of field.list(data)) {
    const object = field.obj(item);
    if (field.obj(object.metadata)[LOOKUP_KEY] === key) return object;
  }
  return null;
}

function found(result: ProviderResult): LookupResult {
  return result.outcome === 'unknown' ? { status: 'unknown', rawCode: result.rawCode } : { status: 'found', result };
}

function unknownAnswer(response: ProviderResponse): LookupResult {
  return { status: 'unknown', rawCode: `lookup_http_${response.status}` };
}
