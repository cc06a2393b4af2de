/**
 * provider_d speaks an Authorize.net-like JSON API: one endpoint (POST /provider_d/xml/v1/request.api) whose root key
 * names the call (createTransactionRequest, getTransactionDetailsRequest, authenticateTestRequest), credentials in
 * merchantAuthentication {name, transactionKey}, decimal string amounts, responseCode 1/2/3/4 with a reason code,
 * refId (≤ 20 characters) as the idempotency key, HTTP 200 for everything but outages, a UTF-8 BOM before the JSON
 * (as the real one sends), and webhooks signed `X-ANET-Signature: sha512=<HMAC-SHA512 hex>`. Like Authorize.net it
 * offers no read by refId: an earlier transaction is found in getUnsettledTransactionListRequest by the
 * `order.invoiceNumber` it was sent with, and read with getTransactionDetailsRequest.
 */
import { createHash, createHmac } from 'node:crypto';
import { cardFacts, type DeclineReason } from '../cards';
import { capture, refund, voidPayment, type SandboxContext } from '../engine';
import { HANG, read, Router, type Reply, type SandboxRequest } from '../http';
import { idempotent, type Processed } from '../idempotency';
import { decimalToMinor, minorToDecimal } from '../money';
import { numericId, type Operation, type Payment } from '../store';
import {
  authorizeFlow,
  draft,
  ISO_CURRENCY,
  looksInvalid,
  lookupOverride,
  operationOverride,
  paymentFields,
  rejected,
  type ProviderFactory,
} from './common';

/** Decline → [responseCode, reasonCode, text]. Invalid data is responseCode 3 (error), declines 2. */
const DECLINES: Record<DeclineReason, [string, string, string]> = {
  do_not_honor: ['2', '2', 'This transaction has been declined.'],
  insufficient_funds: ['2', '3', 'This transaction has been declined.'],
  stolen_card: ['2', '4', 'This transaction has been declined.'],
  lost_card: ['2', '4', 'This transaction has been declined.'],
  expired_card: ['3', '8', 'The credit card has expired.'],
  invalid_number: ['3', '6', 'The credit card number is invalid.'],
  fraud: ['2', '250', 'This transaction has been submitted from a blocked IP address.'],
  // Authorize.net runs no 3-D Secure: an issuer that demands it declines like any other.
  authentication_required: ['2', '2', 'This transaction has been declined.'],
  authentication_failed: ['2', '2', 'This transaction has been declined.'],
};

const BOM = '\uFEFF';
/** Authorize.net answers 200 with a BOM-prefixed JSON body for every outcome. */
const reply = (body: Record<string, unknown>): Reply => ({
  status: 200,
  body: BOM + JSON.stringify(body),
  headers: { 'content-type': 'application/json; charset=utf-8' },
});
const ok = { resultCode: 'Ok', message: [{ code: 'I00001', text: 'Successful.' }] };
const apiError = (code: string, text: string, refId: string | null = null) =>
  reply({ refId, messages: { resultCode: 'Error', message: [{ code, text }] } });
const serverError = (): Reply => ({
  status: 503,
  body: '<html><body><h1>503 Service Unavailable</h1></body></html>',
  headers: { 'content-type': 'text/html' },
});

const TYPES: Record<string, Operation> = {
  authCaptureTransaction: 'authorize',
  authOnlyTransaction: 'authorize',
  priorAuthCaptureTransaction: 'capture',
  voidTransaction: 'void',
  refundTransaction: 'refund',
};

/** The reporting requests a lookup reads (ledgered as `lookup`). */
const READS = [
  'getTransactionDetailsRequest',
  'getUnsettledTransactionListRequest',
  'getSettledBatchListRequest',
  'getTransactionListRequest',
];

export const providerD: ProviderFactory = (ctx: SandboxContext) => {
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

  function transactionReply(
    refId: string | null,
    fields: {
      responseCode: string;
      reasonCode: string;
      text: string;
      transId: string;
      refTransId?: string;
      payment?: Payment;
    },
  ): Reply {
    const approved = fields.responseCode === '1';
    const { payment } = fields;
    return reply({
      transactionResponse: {
        responseCode: fields.responseCode,
        authCode: approved ? numericId(6) : '',
        avsResultCode: 'Y',
        cvvResultCode: approved ? 'M' : '',
        transId: fields.transId,
        refTransID: fields.refTransId ?? '',
        transHash: '',
        testRequest: '0',
        accountNumber: payment?.cardLast4 ? `XXXX${payment.cardLast4}` : '',
        accountType: payment?.cardBrand ? cardType(payment.cardBrand) : '',
        ...(approved
          ? { messages: [{ code: fields.reasonCode, description: fields.text }] }
          : { errors: [{ errorCode: fields.reasonCode, errorText: fields.text }] }),
        ...(payment?.networkTransactionId && approved ? { networkTransId: payment.networkTransactionId } : {}),
        ...(payment?.reference ? { userFields: [{ name: 'reference', value: payment.reference }] } : {}),
      },
      refId,
      messages: approved
        ? ok
        : { resultCode: 'Error', message: [{ code: 'E00027', text: 'The transaction was unsuccessful.' }] },
    });
  }

  /** Authenticates merchantAuthentication; null when it fails (E00007). */
  function authenticate(request: Record<string, unknown>): string | null {
    const auth = read.obj(request.merchantAuthentication);
    const name = read.str(auth.name);
    const key = read.str(auth.transactionKey);
    if (
      !name ||
      name.length < 4 ||
      name.length > 64 ||
      !key ||
      key.length < 8 ||
      key.length > 64 ||
      looksInvalid(name, key)
    )
      return null;
    return name;
  }

  async function handle(request: SandboxRequest) {
    const body = request.body;
    const [rootName] = Object.keys(body ?? {});
    const root = read.obj(body?.[rootName]);
    const refId = read.str(root.refId);
    const refuse = (operation: Operation, reason: string, response: Reply, account: string | null = null) => {
      store.record({
        provider: 'provider_d',
        account,
        idempotency_key: refId,
        http_status: 200,
        ...rejected(operation, reason, response).entry,
      });
      return response;
    };
    if (!body || !rootName)
      return refuse('authorize', 'malformed', apiError('E00003', 'An error occurred while parsing the JSON request.'));
    const account = authenticate(root);
    const operation: Operation =
      rootName === 'createTransactionRequest'
        ? (TYPES[read.str(read.obj(root.transactionRequest).transactionType) ?? ''] ?? 'authorize')
        : READS.includes(rootName)
          ? 'lookup'
          : 'test_credentials';
    if (!account)
      return refuse(
        operation,
        'unauthorized',
        apiError('E00007', 'User authentication failed due to invalid authentication values.', refId),
      );
    if (refId !== null && refId.length > 20) {
      return refuse(
        operation,
        'invalid_ref_id',
        apiError(
          'E00003',
          `The 'AnetApi/xml/v1/schema/AnetApiSchema.xsd:refId' element is invalid - The actual length is greater than the MaxLength value.`,
        ),
        account,
      );
    }
    if (rootName === 'authenticateTestRequest') {
      store.record({
        provider: 'provider_d',
        account,
        idempotency_key: null,
        http_status: 200,
        ...draft('test_credentials', { outcome: 'approved' }),
      });
      return reply({ refId, messages: ok });
    }
    if (READS.includes(rootName)) {
      const forced = lookupOverride(ctx, { provider: 'provider_d', account }, serverError);
      if (forced) {
        const status = forced.reply === HANG ? null : forced.reply.status;
        store.record({ provider: 'provider_d', account, idempotency_key: null, http_status: status, ...forced.entry });
        return forced.reply;
      }
      if (rootName === 'getTransactionDetailsRequest') return details(account, read.str(root.transId) ?? '');
      if (rootName === 'getSettledBatchListRequest') return settledBatches(account);
      return listed(account, root, rootName === 'getTransactionListRequest' ? read.str(root.batchId) : null);
    }
    if (rootName !== 'createTransactionRequest')
      return refuse(operation, 'unknown_method', apiError('E00001', `Unknown method ${rootName}.`), account);
    const transaction = read.obj(root.transactionRequest);
    const forced =
      operation === 'capture' || operation === 'void' || operation === 'refund'
        ? await operationOverride(ctx, 'provider_d', account, operation)
        : null;
    // Answered 5xx without processing: nothing is kept, so a lookup finds nothing.
    if (forced === 'processing_error') {
      store.record({
        provider: 'provider_d',
        account,
        idempotency_key: refId,
        http_status: 503,
        ...rejected(operation, 'processing_error', serverError()).entry,
      });
      return serverError();
    }
    return idempotent(
      store,
      {
        provider: 'provider_d',
        account,
        key: refId,
        request: transaction,
        conflict: () =>
          transactionReply(refId, {
            responseCode: '3',
            reasonCode: '11',
            text: 'A duplicate transaction has been submitted.',
            transId: '0',
          }),
      },
      async () => {
        const processed = remember(await transact(account, refId, operation, transaction), account, transaction);
        // Done, but the caller gets a 5xx: the unknown outcome a lookup must resolve.
        if (forced === 'approved_server_error' && processed.reply !== HANG && processed.reply.status < 300)
          return { ...processed, reply: serverError(), stored: processed.reply };
        return processed;
      },
    );
  }

  async function transact(
    account: string,
    refId: string | null,
    operation: Operation,
    tx: Record<string, unknown>,
  ): Promise<Processed> {
    const type = read.str(tx.transactionType) ?? '';
    const currency = (read.str(tx.currencyCode) ?? 'USD').toUpperCase();
    const fail = (reasonCode: string, text: string, payment?: Payment) =>
      rejected(
        operation,
        `reason_${reasonCode}`,
        transactionReply(refId, { responseCode: '3', reasonCode, text, transId: '0', payment }),
        payment ? paymentFields(payment) : {},
      );
    if (!ISO_CURRENCY.test(currency)) return fail('5', 'A valid amount is required.');
    if (type === 'authCaptureTransaction' || type === 'authOnlyTransaction') {
      const amount = decimalToMinor(tx.amount, currency);
      if (amount === null || (amount === 0 && type === 'authCaptureTransaction'))
        return fail('5', 'A valid amount is required.');
      const card = read.obj(read.obj(tx.payment).creditCard);
      const number = read.str(card.cardNumber);
      const expiry = parseExpiry(read.str(card.expirationDate));
      if (!number || !/^\d{12,19}$/.test(number)) return fail('6', 'The credit card number is invalid.');
      if (!expiry) return fail('7', 'Credit card expiration date is invalid.');
      const facts = cardFacts({ number, ...expiry });
      const reference = referenceOf(tx);
      return authorizeFlow(ctx, {
        operation: amount === 0 ? 'verify' : 'authorize',
        serverError,
        input: {
          id: numericId(11),
          provider: 'provider_d',
          account,
          reference,
          amount,
          currency,
          method: 'card',
          card: facts,
          capture: type === 'authCaptureTransaction',
        },
        render: (payment) => {
          // A payment held for review (the `review` scenario) is responseCode 4, as Authorize.net's fraud filters hold.
          const [responseCode, reasonCode, text] = payment.declineReason
            ? DECLINES[payment.declineReason]
            : payment.state === 'pending'
              ? ['4', '253', 'Your order has been received. Thank you for your business!']
              : ['1', '1', 'This transaction has been approved.'];
          return transactionReply(refId, {
            responseCode,
            reasonCode,
            text,
            transId: responseCode === '3' ? '0' : payment.id,
            payment,
          });
        },
      });
    }
    const payment = store.payments.get(read.str(tx.refTransId) ?? '');
    if (!payment || payment.account !== account) return fail('16', 'The transaction cannot be found.');
    if (type === 'priorAuthCaptureTransaction' || type === 'voidTransaction') {
      const amount = tx.amount === undefined ? null : decimalToMinor(tx.amount, payment.currency);
      const result = type === 'voidTransaction' ? voidPayment(payment) : capture(payment, amount);
      if (!result.ok) {
        return result.error === 'amount_too_large'
          ? fail(
              '47',
              'The amount requested for settlement cannot be greater than the original amount authorized.',
              payment,
            )
          : fail(
              type === 'voidTransaction' ? '310' : '311',
              type === 'voidTransaction'
                ? 'This transaction has already been voided.'
                : 'This transaction has already been captured.',
              payment,
            );
      }
      return {
        reply: transactionReply(refId, {
          responseCode: '1',
          reasonCode: '1',
          text: 'This transaction has been approved.',
          transId: payment.id,
          refTransId: payment.id,
          payment,
        }),
        entry: draft(operation, {
          ...paymentFields(payment, type === 'voidTransaction' ? null : payment.capturedAmount),
          outcome: 'approved',
        }),
      };
    }
    if (type === 'refundTransaction') {
      const card = read.obj(read.obj(tx.payment).creditCard);
      if ((read.str(card.cardNumber) ?? '').slice(-4) !== payment.cardLast4)
        return fail('54', 'The referenced transaction does not meet the criteria for issuing a credit.', payment);
      const amount = decimalToMinor(tx.amount, payment.currency);
      const result = refund(ctx, payment, {
        id: numericId(11),
        amount,
        reference: referenceOf(tx),
        asynchronous: false,
      });
      if (!result.ok)
        return fail(
          result.error === 'amount_too_large' ? '55' : '54',
          result.error === 'amount_too_large'
            ? 'The sum of credits against the referenced transaction would exceed the original debit amount.'
            : 'The referenced transaction does not meet the criteria for issuing a credit.',
          payment,
        );
      const record = result.value;
      const [responseCode, reasonCode, text] =
        record.state === 'failed'
          ? ['2', '2', 'This transaction has been declined.']
          : ['1', '1', 'This transaction has been approved.'];
      return {
        reply: transactionReply(refId, {
          responseCode,
          reasonCode,
          text,
          transId: record.id,
          refTransId: payment.id,
          payment,
        }),
        entry: draft('refund', {
          ...paymentFields(payment, record.amount),
          reference: record.reference,
          provider_reference: record.id,
          outcome: record.state === 'failed' ? 'declined' : 'approved',
        }),
      };
    }
    return fail('3', `Unsupported transactionType ${type}.`);
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

  return {
    slug: 'provider_d',
    settleBatch,
    router: new Router().on('POST', '/xml/v1/request.api', handle),
    accountOf: (credentials) => (typeof credentials.api_login_id === 'string' ? credentials.api_login_id : null),
    supportsDisputes: false,
    webhook(event, payment, refundRecord, endpoint) {
      const failed = event.type.endsWith('failed');
      const eventType = refundRecord
        ? 'net.authorize.payment.refund.created'
        : event.type === 'payment.succeeded'
          ? 'net.authorize.payment.authcapture.created'
          : event.type === 'payment.failed'
            ? 'net.authorize.payment.fraud.declined'
            : 'net.authorize.payment.void.created';
      const body = JSON.stringify({
        notificationId: uuidFrom(event.id),
        eventType,
        eventDate: event.createdAt,
        webhookId: endpoint.id,
        payload: {
          responseCode: failed ? 2 : 1,
          authCode: failed ? '' : numericId(6),
          avsResponse: 'Y',
          authAmount: Number(minorToDecimal(refundRecord?.amount ?? event.amount, event.currency)),
          entityName: 'transaction',
          id: refundRecord?.id ?? event.paymentId,
          merchantReferenceId: payment?.reference ?? event.reference,
        },
      });
      return { headers: { 'x-anet-signature': anetSignature(body, endpoint.secret) }, body };
    },
  };
};

/** sha512= followed by the uppercase hex HMAC-SHA512 of the body, keyed by the signature key text. */
export function anetSignature(body: string, signatureKey: string): string {
  return `sha512=${createHmac('sha512', signatureKey).update(body).digest('hex').toUpperCase()}`;
}

/** Our reference travels in userFields (Authorize.net echoes them back). */
function referenceOf(tx: Record<string, unknown>): string | null {
  const fields = read.obj(tx.userFields).userField;
  return read.str(
    (Array.isArray(fields) ? fields : []).map(read.obj).find((field) => field.name === 'reference')?.value,
  );
}

/** 'YYYY-MM' or 'MMYY'. */
function parseExpiry(value: string | null): { expMonth: number; expYear: number } | null {
  let match = /^(\d{4})-(\d{2})$/.exec(value ?? '');
  if (match) return { expYear: Number(match[1]), expMonth: Number(match[2]) };
  match = /^(\d{2})(\d{2})$/.exec(value ?? '');
  return match ? { expMonth: Number(match[1]), expYear: 2000 + Number(match[2]) } : null;
}

function cardType(brand: string): string {
  return (
    {
      visa: 'Visa',
      mastercard: 'MasterCard',
      amex: 'AmericanExpress',
      discover: 'Discover',
      diners: 'DinersClub',
      jcb: 'JCB',
    }[brand] ?? 'Other'
  );
}

/** A stable UUID-shaped id per event, so a redelivery carries the same notificationId. */
function uuidFrom(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
