/**
 * provider_b (Adyen-like) adapter: /v71/payments with HTTP Basic API credentials, merchantAccount in every body,
 * the `Idempotency-Key` header, pix/boleto via action objects, redirect 3-D Secure 2 (./three-ds.ts) and
 * asynchronous modifications (/captures, /cancels, /refunds answer "received").
 */
import type { AuthorizeRequest, CardData, ConnectorAdapter, ProviderCall } from '../connector';
import type { ProviderBCredentials } from '../credentials';
import { callProvider, credentialCheck, result, unsupportedMethod, withTransport, type ProviderRequest } from '../http';
import { lookupRequest } from './lookup';
import { redirectResultOf, threeDsRequestOf } from './three-ds';
import { fromDetails, fromModification, fromPayment } from './transformers';
import { parseWebhook } from './webhook';

/** A Checkout API request; every body names the merchantAccount but /payments/details, whose schema has none. */
function send(
  call: Omit<ProviderCall, 'idempotencyKey'> & { idempotencyKey?: string },
  request: ProviderRequest & { json: Record<string, unknown> },
  { account = true } = {},
) {
  const credentials = call.credentials as ProviderBCredentials;
  return callProvider(call, {
    ...request,
    json: account ? { merchantAccount: credentials.merchant_account, ...request.json } : request.json,
    headers: {
      authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`,
      'idempotency-key': call.idempotencyKey,
    },
  });
}

function scheme(card: CardData) {
  return {
    type: 'scheme',
    number: card.number,
    expiryMonth: String(card.expMonth).padStart(2, '0'),
    expiryYear: String(card.expYear),
    cvc: card.cvc ?? undefined,
    holderName: card.holderName ?? undefined,
  };
}

function shopper(request: AuthorizeRequest) {
  const name = request.customer?.name?.trim();
  const [firstName, ...rest] = name ? name.split(/\s+/) : [];
  return {
    shopperEmail: request.customer?.email ?? undefined,
    shopperName: firstName ? { firstName, lastName: rest.join(' ') || firstName } : undefined,
    socialSecurityNumber: request.customer?.documentNumber ?? undefined,
  };
}

function paymentMethod(request: AuthorizeRequest) {
  if (request.paymentMethod === 'card') return request.card ? scheme(request.card) : null;
  if (request.paymentMethod === 'pix') return { type: 'pix' };
  if (request.paymentMethod === 'boleto') return { type: 'boletobancario' };
  return null;
}

const modificationPath = (reference: string, action: string) =>
  `/v71/payments/${encodeURIComponent(reference)}/${action}`;

export const providerBAdapter: ConnectorAdapter = {
  slug: 'provider_b',
  // Adyen has no read. An authorize or verify "not found" is its technical cancel received for an authorisation known
  // to be uncaptured: whatever it makes under our reference, in flight or not, is cancelled. Captures, voids and
  // refunds are never found or not found (unknown until their notification), so no grace period ever ends.
  reads: {
    authorize: { seesInFlight: true },
    verify: { seesInFlight: true },
    capture: { seesInFlight: false, graceMs: Number.POSITIVE_INFINITY },
    void: { seesInFlight: false, graceMs: Number.POSITIVE_INFINITY },
    refund: { seesInFlight: false, graceMs: Number.POSITIVE_INFINITY },
  },

  authorize: (call, request) =>
    withTransport(async () => {
      const method = paymentMethod(request);
      if (!method) return unsupportedMethod(request.paymentMethod);
      const recurring = request.recurring;
      return fromPayment(
        await send(call, {
          method: 'POST',
          path: '/v71/payments',
          json: {
            amount: { value: request.amount, currency: request.currency },
            reference: request.reference,
            paymentMethod: method,
            ...shopper(request),
            installments:
              request.installments && request.installments > 1 ? { value: request.installments } : undefined,
            shopperInteraction: recurring ? 'ContAuth' : 'Ecommerce',
            recurringProcessingModel: recurring ? 'UnscheduledCardOnFile' : undefined,
            additionalData: {
              ...(request.capture ? {} : { manualCapture: 'true' }),
              ...(recurring?.networkTransactionId ? { networkTxReference: recurring.networkTransactionId } : {}),
            },
            ...threeDsRequestOf(request),
          },
        }),
      );
    }),

  capture: (call, request) =>
    withTransport(async () =>
      fromModification(
        await send(call, {
          method: 'POST',
          path: modificationPath(request.providerReference, 'captures'),
          json: { amount: { value: request.amount, currency: request.currency } },
        }),
        'capture',
      ),
    ),

  void: (call, request) =>
    withTransport(async () =>
      fromModification(
        await send(call, {
          method: 'POST',
          path: modificationPath(request.providerReference, 'cancels'),
          json: {},
        }),
        'void',
      ),
    ),

  refund: (call, request) =>
    withTransport(async () =>
      fromModification(
        await send(call, {
          method: 'POST',
          path: modificationPath(request.providerReference, 'refunds'),
          json: { amount: { value: request.amount, currency: request.currency }, reference: request.reference },
        }),
        'refund',
      ),
    ),

  verifyCard: (call, request) =>
    withTransport(async () =>
      fromPayment(
        await send(call, {
          method: 'POST',
          path: '/v71/payments',
          json: {
            amount: { value: 0, currency: request.currency },
            reference: request.reference,
            paymentMethod: scheme(request.card),
            shopperInteraction: 'Ecommerce',
            recurringProcessingModel: 'CardOnFile',
            storePaymentMethod: true,
          },
        }),
      ),
    ),

  // The verdict of a challenge is Adyen's answer to the redirectResult the buyer came back with, under a key of its
  // own (a return seen twice is answered the same, nothing done twice). Without it there is nothing to ask: the
  // AUTHORISATION notification decides.
  completeAuthentication: (call, request) =>
    withTransport(async () => {
      const redirectResult = redirectResultOf(request.returnParams);
      if (!redirectResult)
        return result('unknown', { providerReference: request.providerReference, rawCode: 'no_redirect_result' });
      return fromDetails(
        await send(
          { ...call, idempotencyKey: `${call.idempotencyKey}:details` },
          { method: 'POST', path: '/v71/payments/details', json: { details: { redirectResult } } },
          { account: false },
        ),
      );
    }),

  lookup: (call, request) =>
    lookupRequest((sent, idempotencyKey) => send({ ...call, idempotencyKey }, sent), call, request),

  parseWebhook,

  testCredentials: (call) =>
    credentialCheck(() =>
      send({ ...call, idempotencyKey: undefined }, { method: 'POST', path: '/v71/paymentMethods', json: {} }),
    ),
};
