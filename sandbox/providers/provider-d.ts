/**
 * provider_d speaks an Authorize.net-like JSON API: one endpoint (POST /provider_d/xml/v1/request.api) whose root key
 * names the call (createTransactionRequest, getTransactionDetailsRequest, authenticateTestRequest), credentials in
 * merchantAuthentication {name, transactionKey}, decimal string amounts, responseCode 1/2/3/4 with a reason code,
 * refId (≤ 20 characters) as the idempotency key, HTTP 200 for everything but outages, a UTF-8 BOM before the JSON
 * (as the real one sends), and webhooks signed `X-ANET-Signature: sha512=<HMAC-SHA512 hex>`. Like Authorize.net it
 * offers no read by refId: an earlier transaction is found in getUnsettledTransactionListRequest by the
 * `order.invoiceNumber` it was sent with, and read with getTransactionDetailsRequest (./provider-d-reporting.ts).
 * This file holds the transactions; the answers and webhooks are in ./provider-d-shapes.ts.
 */
import { cardFacts } from '../cards';
import { capture, refund, voidPayment, type SandboxContext } from '../engine';
import { HANG, read, Router, type Reply, type SandboxRequest } from '../http';
import { idempotent, type Processed } from '../idempotency';
import { decimalToMinor } from '../money';
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
import { reporting } from './provider-d-reporting';
import { apiError, DECLINES, reply, ok, serverError, transactionReply, webhook } from './provider-d-shapes';

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
  const { remember, details, listed, settledBatches, settleBatch } = reporting(ctx);

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

  return {
    slug: 'provider_d',
    settleBatch,
    router: new Router().on('POST', '/xml/v1/request.api', handle),
    accountOf: (credentials) => (typeof credentials.api_login_id === 'string' ? credentials.api_login_id : null),
    supportsDisputes: false,
    webhook,
  };
};

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
