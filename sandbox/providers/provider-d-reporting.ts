/**
 * provider_d's reporting API, the only way Authorize.net offers to find an earlier transaction (it has no read by
 * refId): getUnsettledTransactionListRequest lists the transactions not settled yet with the order.invoiceNumber each
 * was sent with, getTransactionDetailsRequest reads one, getSettledBatchListRequest and getTransactionListRequest
 * read the settled batches (the control endpoint's daily settlement moves transactions there).
 */
import type { SandboxContext } from '../engine';
import { read, type Reply } from '../http';
import type { Processed } from '../idempotency';
import { minorToDecimal } from '../money';
import type { Payment } from '../store';
import { draft, paymentFields } from './common';
import { apiError, cardType, DECLINES, ok, reply } from './provider-d-shapes';

export function reporting(ctx: SandboxContext) {
  const { store } = ctx;
  /** Each transaction's order.invoiceNumber and submit time, as getUnsettledTransactionListRequest lists them. */
  const invoices = new Map<string, string | null>();
  const submitted: Array<{ transId: string; account: string; at: string }> = [];
  /** Settled batches (control POST /batches/settle), oldest first; their transactions left the unsettled list. */
  const batches: Array<{ batchId: string; account: string; settledAt: string; transIds: Set<string> }> = [];
  const isSettled = (transId: string) => batches.some((batch) => batch.transIds.has(transId));

  /** Keeps a processed transaction (it has a transId) for the unsettled list, with its invoice number. */
  function remember(processed: Processed, account: string, tx: Record<string, unknown>): Processed {
    const transId = processed.entry.provider_reference;
    if (transId && !invoices.has(transId)) {
      invoices.set(transId, read.str(read.obj(tx.order).invoiceNumber));
      submitted.push({ transId, account, at: new Date().toISOString() });
    }
    return processed;
  }

  /** A payment's transactionStatus, responseCode and reason as getTransactionDetails reports them. */
  function paymentStatus(payment: Payment): { status: string; responseCode: string; reasonCode: string } {
    const status = {
      authorized: 'authorizedPendingCapture',
      captured: 'capturedPendingSettlement',
      voided: 'voided',
      declined: 'declined',
      pending: 'FDSPendingReview',
      expired: 'expired',
      verified: 'authorizedPendingCapture',
      requires_action: 'FDSPendingReview',
    }[payment.state];
    if (payment.declineReason) {
      const [responseCode, reasonCode] = DECLINES[payment.declineReason];
      return { status, responseCode, reasonCode };
    }
    return {
      status,
      responseCode: payment.state === 'pending' ? '4' : '1',
      reasonCode: payment.state === 'pending' ? '253' : '1',
    };
  }

  /** A transaction (a payment, or a refund as its own transaction) as getTransactionDetailsRequest answers it. */
  function details(account: string, transId: string): Reply {
    const refundRecord = store.refunds.get(transId);
    const payment = store.payments.get(refundRecord?.paymentId ?? transId);
    if (!payment || payment.account !== account || (refundRecord && refundRecord.provider !== 'provider_d'))
      return apiError('E00040', 'The record cannot be found.');
    store.record({
      provider: 'provider_d',
      account,
      idempotency_key: null,
      http_status: 200,
      ...draft('lookup', { ...paymentFields(payment), outcome: 'approved' }),
    });
    const { status, responseCode, reasonCode } = refundRecord
      ? {
          status: refundRecord.state === 'failed' ? 'declined' : 'refundPendingSettlement',
          responseCode: refundRecord.state === 'failed' ? '2' : '1',
          reasonCode: refundRecord.state === 'failed' ? '2' : '1',
        }
      : paymentStatus(payment);
    const amount = refundRecord?.amount ?? payment.amount;
    return reply({
      transaction: {
        transId,
        ...(refundRecord ? { refTransId: payment.id } : {}),
        submitTimeUTC: refundRecord?.createdAt ?? payment.createdAt,
        transactionType: refundRecord
          ? 'refundTransaction'
          : payment.capturedAmount > 0 || payment.state === 'captured'
            ? 'authCaptureTransaction'
            : 'authOnlyTransaction',
        transactionStatus: status,
        responseCode,
        responseReasonCode: reasonCode,
        authAmount: minorToDecimal(amount, payment.currency),
        settleAmount: minorToDecimal(refundRecord ? amount : payment.capturedAmount, payment.currency),
        ...(payment.networkTransactionId && !refundRecord ? { networkTransId: payment.networkTransactionId } : {}),
        order: { invoiceNumber: invoices.get(transId) ?? undefined },
        payment: {
          creditCard: {
            cardNumber: `XXXX${payment.cardLast4}`,
            expirationDate: 'XXXX',
            cardType: cardType(payment.cardBrand ?? ''),
          },
        },
      },
      messages: ok,
    });
  }

  /**
   * getUnsettledTransactionListRequest (batchId null): this account's transactions not settled yet; or
   * getTransactionListRequest: those of one settled batch. Newest first (sorting submitTimeUTC descending is the only
   * order the sandbox offers), paged by paging {limit ≤ 1000, offset = page number from 1}.
   */
  function listed(account: string, root: Record<string, unknown>, batchId: string | null): Reply {
    const paging = read.obj(root.paging);
    const limit = Math.min(Math.max(read.int(paging.limit) ?? 1000, 1), 1000);
    const offset = Math.max(read.int(paging.offset) ?? 1, 1);
    const batch = batchId === null ? null : batches.find((b) => b.batchId === batchId && b.account === account);
    const own = submitted
      .filter((entry) => entry.account === account)
      .filter((entry) => (batch ? batch.transIds.has(entry.transId) : batchId === null && !isSettled(entry.transId)))
      .reverse();
    const page = own.slice((offset - 1) * limit, offset * limit);
    store.record({
      provider: 'provider_d',
      account,
      idempotency_key: null,
      http_status: 200,
      ...draft('lookup', { outcome: 'approved', reason: 'listed' }),
    });
    return reply({
      transactions: page.map(({ transId, at }) => {
        const refundRecord = store.refunds.get(transId);
        const payment = store.payments.get(refundRecord?.paymentId ?? transId);
        return {
          transId,
          submitTimeUTC: at,
          transactionStatus: refundRecord
            ? refundRecord.state === 'failed'
              ? 'declined'
              : batch
                ? 'refundSettledSuccessfully'
                : 'refundPendingSettlement'
            : payment
              ? batch && payment.state === 'captured'
                ? 'settledSuccessfully'
                : paymentStatus(payment).status
              : 'generalError',
          invoiceNumber: invoices.get(transId) ?? undefined,
          accountNumber: payment?.cardLast4 ? `XXXX${payment.cardLast4}` : undefined,
          settleAmount: Number(
            minorToDecimal(refundRecord?.amount ?? payment?.capturedAmount ?? 0, payment?.currency ?? 'USD'),
          ),
        };
      }),
      totalNumInResultSet: own.length,
      messages: ok,
    });
  }

  /** getSettledBatchListRequest: this account's settled batches (the sandbox ignores the date window). */
  function settledBatches(account: string): Reply {
    store.record({
      provider: 'provider_d',
      account,
      idempotency_key: null,
      http_status: 200,
      ...draft('lookup', { outcome: 'approved', reason: 'batches' }),
    });
    return reply({
      batchList: batches
        .filter((batch) => batch.account === account)
        .map((batch) => ({
          batchId: batch.batchId,
          settlementTimeUTC: batch.settledAt,
          settlementState: 'settledSuccessfully',
        })),
      messages: ok,
    });
  }

  /** The day's settlement: every transaction of the account not settled yet goes into a new batch. */
  function settleBatch(account: string) {
    const transIds = new Set(
      submitted.filter((e) => e.account === account && !isSettled(e.transId)).map((e) => e.transId),
    );
    const batchId = String(10_000_000 + batches.length + 1);
    batches.push({ batchId, account, settledAt: new Date().toISOString(), transIds });
    return { batch_id: batchId, transactions: transIds.size };
  }

  return { remember, details, listed, settledBatches, settleBatch };
}
