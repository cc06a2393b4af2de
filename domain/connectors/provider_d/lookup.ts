/**
 * provider_d (Authorize.net-like) reads, with only what Authorize.net offers: it keeps no record by refId, so every
 * transaction we create carries `order.invoiceNumber` = its refId (refIdFor(key), ≤ 20 characters like the invoice
 * number), and an earlier request is found in getUnsettledTransactionListRequest by that invoice number, then read
 * with getTransactionDetailsRequest. Captures and voids show in the authorization's own details (its status).
 * A transaction settled since (Authorize.net settles once a day) leaves the unsettled list, so a request not found
 * there is searched in the batches settled in the last SETTLED_WINDOW_DAYS (getSettledBatchListRequest, then each
 * batch's getTransactionListRequest) before it counts as not found.
 */
import {
  type LookupRequest,
  type LookupResult,
  type Outcome,
  type ProviderResult,
  ProviderUnreachableError,
} from '../connector';
import { field, result, serverFailure, type ProviderResponse } from '../http';
import { REASON_CODES, RESPONSE_CODES } from './transformers';

/** transactionStatus (getTransactionDetails / the transaction lists) → what the payment is now. */
export const TRANSACTION_STATUSES: Readonly<Record<string, Outcome>> = {
  authorizedPendingCapture: 'approved',
  capturedPendingSettlement: 'approved',
  settledSuccessfully: 'approved',
  refundPendingSettlement: 'approved',
  refundSettledSuccessfully: 'approved',
  FDSPendingReview: 'pending',
  FDSAuthorizedPendingReview: 'pending',
  underReview: 'pending',
  approvedReview: 'approved',
  declined: 'soft_decline', // the reason code refines it (REASON_CODES)
  failedReview: 'hard_decline',
  voided: 'soft_decline', // never completes: for a pending payment, it failed
  expired: 'soft_decline',
  generalError: 'processing_error',
  communicationError: 'processing_error',
};

const PAGE_SIZE = 1000;
const MAX_PAGES = 3;
/** How far back settled batches are searched: a lookup that keeps failing across a settlement, or a backlog. */
const SETTLED_WINDOW_DAYS = 2;
/** Settled batches read before giving up as unknown (a day has one batch; more than this is not expected). */
const MAX_BATCHES = 10;

type Post = (json: Record<string, unknown>) => Promise<ProviderResponse>;

/** A getTransactionDetails answer → the transaction's outcome now (retrieve, and what a lookup found). */
export function fromTransactionDetails(response: ProviderResponse): ProviderResult {
  const failed = serverFailure(response);
  if (failed) return failed;
  const body = response.body ?? {};
  const transaction = field.obj(body.transaction);
  const status = field.str(transaction.transactionStatus);
  if (!status) {
    const message = field.obj(field.list(field.obj(body.messages).message)[0]);
    return result('processing_error', {
      rawCode: field.str(message.code) ?? 'unknown',
      rawMessage: field.str(message.text),
    });
  }
  const reason = field.str(transaction.responseReasonCode);
  const responseCode = field.str(transaction.responseCode);
  const outcome =
    status === 'declined'
      ? ((reason ? REASON_CODES[reason] : undefined) ??
        (responseCode ? RESPONSE_CODES[responseCode] : undefined) ??
        'soft_decline')
      : (TRANSACTION_STATUSES[status] ?? 'processing_error');
  return result(outcome, {
    providerReference: field.str(transaction.transId),
    rawCode: status === 'declined' && reason ? reason : status,
    rawMessage: field.str(transaction.responseReasonDescription),
    networkTransactionId: field.str(transaction.networkTransId),
  });
}

export async function lookupTransaction(
  post: Post,
  auth: Record<string, unknown>,
  refId: string,
  request: LookupRequest,
): Promise<LookupResult> {
  try {
    if (request.operation === 'capture' || request.operation === 'void')
      return await lookupModification(post, auth, request.operation, request.providerReference);
    return await lookupByInvoice(post, auth, refId);
  } catch (error) {
    if (error instanceof ProviderUnreachableError) return { status: 'unknown', rawCode: error.kind };
    throw error;
  }
}

const details = (post: Post, auth: Record<string, unknown>, transId: string) =>
  post({ getTransactionDetailsRequest: { merchantAuthentication: auth, transId } });

async function lookupByInvoice(
  post: Post,
  auth: Record<string, unknown>,
  invoiceNumber: string,
): Promise<LookupResult> {
  const unsettled = await findInList(post, auth, invoiceNumber, 'getUnsettledTransactionListRequest', {});
  if (unsettled.status !== 'not_found') return unsettled;
  const now = Date.now();
  const batches = await post({
    getSettledBatchListRequest: {
      merchantAuthentication: auth,
      firstSettlementDate: new Date(now - SETTLED_WINDOW_DAYS * 86_400_000).toISOString().slice(0, 19),
      lastSettlementDate: new Date(now).toISOString().slice(0, 19),
    },
  });
  if (batches.status !== 200 || field.obj(batches.body?.messages).resultCode !== 'Ok')
    return { status: 'unknown', rawCode: `lookup_http_${batches.status}` };
  const batchIds = field
    .list(batches.body?.batchList)
    .map((batch) => field.str(field.obj(batch).batchId))
    .filter((id): id is string => id !== null)
    .reverse();
  if (batchIds.length > MAX_BATCHES) return { status: 'unknown', rawCode: 'lookup_list_truncated' };
  for (const batchId of batchIds) {
    const inBatch = await findInList(post, auth, invoiceNumber, 'getTransactionListRequest', { batchId });
    if (inBatch.status !== 'not_found') return inBatch;
  }
  return { status: 'not_found' };
}

/** The transaction with this invoice number in one list (the unsettled one, or a settled batch's), paged. */
async function findInList(
  post: Post,
  auth: Record<string, unknown>,
  invoiceNumber: string,
  request: 'getUnsettledTransactionListRequest' | 'getTransactionListRequest',
  filter: Record<string, unknown>,
): Promise<LookupResult> {
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const listed = await post({
      [request]: {
        merchantAuthentication: auth,
        ...filter,
        sorting: { orderBy: 'submitTimeUTC', orderDescending: true },
        paging: { limit: PAGE_SIZE, offset: page },
      },
    });
    if (listed.status !== 200 || field.obj(listed.body?.messages).resultCode !== 'Ok')
      return { status: 'unknown', rawCode: `lookup_http_${listed.status}` };
    const transactions = field.list(listed.body?.transactions).map(field.obj);
    const hit = transactions.find((transaction) => field.str(transaction.invoiceNumber) === invoiceNumber);
    if (hit) {
      const transId = field.str(hit.transId);
      if (!transId) return { status: 'unknown', rawCode: 'lookup_without_trans_id' };
      return found(fromTransactionDetails(await details(post, auth, transId)));
    }
    const total = field.num(listed.body?.totalNumInResultSet) ?? transactions.length;
    if (page * PAGE_SIZE >= total) return { status: 'not_found' };
  }
  return { status: 'unknown', rawCode: 'lookup_list_truncated' };
}

/** A capture or void shows in the authorization's status: still authorizedPendingCapture means never processed. */
async function lookupModification(
  post: Post,
  auth: Record<string, unknown>,
  operation: 'capture' | 'void',
  providerReference: string | undefined,
): Promise<LookupResult> {
  if (!providerReference) return { status: 'unknown', rawCode: 'lookup_without_payment' };
  const read = fromTransactionDetails(await details(post, auth, providerReference));
  if (read.outcome === 'unknown') return { status: 'unknown', rawCode: read.rawCode };
  const status = read.rawCode ?? '';
  if (status === 'authorizedPendingCapture') return { status: 'not_found' };
  const done =
    operation === 'capture'
      ? status === 'capturedPendingSettlement' || status === 'settledSuccessfully'
      : status === 'voided';
  if (!TRANSACTION_STATUSES[status] && !done) return { status: 'unknown', rawCode: status || 'lookup_unreadable' };
  return {
    status: 'found',
    result: { ...read, outcome: done ? 'approved' : 'processing_error', rawCode: status },
  };
}

function found(read: ProviderResult): LookupResult {
  return read.outcome === 'unknown' ? { status: 'unknown', rawCode: read.rawCode } : { status: 'found', result: read };
}
