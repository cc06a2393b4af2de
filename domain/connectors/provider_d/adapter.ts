/**
 * provider_d (Authorize.net-like) adapter: every call is one JSON document POSTed to /xml/v1/request.api, with
 * merchantAuthentication inside and the idempotency key as refId (≤ 20 characters, so longer keys are hashed).
 * Refunds need the card's last four digits, read first with getTransactionDetailsRequest. Every transaction carries
 * its refId as `order.invoiceNumber` too: Authorize.net has no read by refId, so an unknown outcome is looked up in
 * the unsettled transaction list by invoice number (lookup.ts); a payment is read by its transId (retrieve).
 */
import { createHash } from 'node:crypto';
import type { ConnectorAdapter, ProviderCall } from '../connector';
import type { ProviderDCredentials } from '../credentials';
import { callProvider, credentialCheck, unsupportedMethod, withTransport } from '../http';
import { toDecimal } from '../money';
import { fromTransactionDetails, lookupTransaction } from './lookup';
import { fromDetails, fromTransaction, isOk } from './transformers';
import { parseWebhook } from './webhook';

const PATH = '/xml/v1/request.api';

/** refId is limited to 20 characters: longer idempotency keys are replaced by a stable 20-character digest. */
export function refIdFor(idempotencyKey: string): string {
  return idempotencyKey.length <= 20
    ? idempotencyKey
    : createHash('sha256').update(idempotencyKey).digest('base64url').slice(0, 20);
}

function auth(call: Pick<ProviderCall, 'credentials'>) {
  const credentials = call.credentials as ProviderDCredentials;
  return { name: credentials.api_login_id, transactionKey: credentials.transaction_key };
}

/** Property order follows the provider's schema (it validates element order). */
function transact(call: ProviderCall, transactionRequest: Record<string, unknown>) {
  return callProvider(call, {
    method: 'POST',
    path: PATH,
    json: {
      createTransactionRequest: {
        merchantAuthentication: auth(call),
        refId: refIdFor(call.idempotencyKey),
        transactionRequest,
      },
    },
  });
}

/** Our key as the invoice number (≤ 20 characters, like refId): what a lookup finds the transaction by. */
const order = (call: Pick<ProviderCall, 'idempotencyKey'>) => ({ invoiceNumber: refIdFor(call.idempotencyKey) });

/** A read: one JSON document with merchantAuthentication inside, never keyed. */
const post = (call: ProviderCall) => (json: Record<string, unknown>) =>
  callProvider(call, { method: 'POST', path: PATH, json });

const expiration = (month: number, year: number) => `${year}-${String(month).padStart(2, '0')}`;

export const providerDAdapter: ConnectorAdapter = {
  slug: 'provider_d',
  // Authorize.net answers createTransaction synchronously and its unsettled list and transaction details show a
  // transaction at once (a settled one leaves the unsettled list: see lookup.ts).
  reads: {
    authorize: { seesInFlight: true },
    verify: { seesInFlight: true },
    capture: { seesInFlight: true },
    void: { seesInFlight: true },
    refund: { seesInFlight: true },
  },

  authorize: (call, request) =>
    withTransport(async () => {
      if (request.paymentMethod !== 'card' || !request.card) return unsupportedMethod(request.paymentMethod);
      const { card } = request;
      const [firstName, ...rest] = (request.customer?.name ?? card.holderName ?? '').trim().split(/\s+/);
      return fromTransaction(
        await transact(call, {
          transactionType: request.capture ? 'authCaptureTransaction' : 'authOnlyTransaction',
          amount: toDecimal(request.amount, request.currency),
          currencyCode: request.currency,
          payment: {
            creditCard: {
              cardNumber: card.number,
              expirationDate: expiration(card.expMonth, card.expYear),
              cardCode: card.cvc ?? undefined,
            },
          },
          order: order(call),
          customer: request.customer?.email ? { email: request.customer.email } : undefined,
          billTo: firstName ? { firstName, lastName: rest.join(' ') || undefined } : undefined,
          userFields: { userField: [{ name: 'reference', value: request.reference }] },
          processingOptions: request.recurring ? { isSubsequentAuth: 'true' } : undefined,
          subsequentAuthInformation: request.recurring?.networkTransactionId
            ? { originalNetworkTransId: request.recurring.networkTransactionId, reason: 'resubmission' }
            : undefined,
        }),
      );
    }),

  capture: (call, request) =>
    withTransport(async () =>
      fromTransaction(
        await transact(call, {
          transactionType: 'priorAuthCaptureTransaction',
          amount: toDecimal(request.amount, request.currency),
          refTransId: request.providerReference,
        }),
      ),
    ),

  void: (call, request) =>
    withTransport(async () =>
      fromTransaction(
        await transact(call, {
          transactionType: 'voidTransaction',
          refTransId: request.providerReference,
        }),
      ),
    ),

  refund: (call, request) =>
    withTransport(async () => {
      const details = fromDetails(
        await callProvider(call, {
          method: 'POST',
          path: PATH,
          json: {
            getTransactionDetailsRequest: { merchantAuthentication: auth(call), transId: request.providerReference },
          },
        }),
      );
      if ('failure' in details) return details.failure;
      return fromTransaction(
        await transact(call, {
          transactionType: 'refundTransaction',
          amount: toDecimal(request.amount, request.currency),
          payment: { creditCard: { cardNumber: details.cardNumber.slice(-4), expirationDate: 'XXXX' } },
          refTransId: request.providerReference,
          order: order(call),
          userFields: { userField: [{ name: 'reference', value: request.reference }] },
        }),
      );
    }),

  verifyCard: (call, request) =>
    withTransport(async () =>
      fromTransaction(
        await transact(call, {
          transactionType: 'authOnlyTransaction',
          amount: toDecimal(0, request.currency),
          currencyCode: request.currency,
          payment: {
            creditCard: {
              cardNumber: request.card.number,
              expirationDate: expiration(request.card.expMonth, request.card.expYear),
              cardCode: request.card.cvc ?? undefined,
            },
          },
          order: order(call),
          userFields: { userField: [{ name: 'reference', value: request.reference }] },
        }),
      ),
    ),

  lookup: (call, request) => lookupTransaction(post(call), auth(call), refIdFor(call.idempotencyKey), request),

  retrieve: (call, request) =>
    withTransport(async () =>
      fromTransactionDetails(
        await post(call)({
          getTransactionDetailsRequest: { merchantAuthentication: auth(call), transId: request.providerReference },
        }),
      ),
    ),

  parseWebhook,

  testCredentials: (call) =>
    credentialCheck(async () => {
      const response = await callProvider(call, {
        method: 'POST',
        path: PATH,
        json: { authenticateTestRequest: { merchantAuthentication: auth(call) } },
      });
      // Authorize.net answers 200 even for bad credentials: the verdict is in messages.resultCode.
      return { ...response, rejected: response.status === 200 && !isOk(response) };
    }),
};
