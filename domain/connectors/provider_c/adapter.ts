/**
 * provider_c (Mercado Pago-like) adapter: cards are tokenized at /v1/card_tokens, then charged at /v1/payments with
 * a decimal transaction_amount and the mandatory `X-Idempotency-Key`; captures and voids are PUTs on the payment;
 * pix answers pending with a QR code. There is no zero-amount auth: verifyCard authorizes one currency unit
 * without capture and cancels it.
 */
import type { AuthorizeRequest, CardData, ConnectorAdapter, ProviderCall, ProviderResult } from '../connector';
import { callProvider, credentialCheck, field, unsupportedMethod, withTransport, type ProviderRequest } from '../http';
import { KEY_METADATA } from '../lookup-reference';
import { currencyExponent, toDecimal } from '../money';
import { accessToken } from './auth';
import { lookupRequest } from './lookup';
import { fromCardToken, fromPayment, fromRefund, fromUpdate, paymentMethodIdOf } from './transformers';
import { parseWebhook } from './webhook';

type Call = Omit<ProviderCall, 'idempotencyKey'> & { idempotencyKey?: string };

/** Sends with a bearer token; a failed token exchange short-circuits into its result. */
async function send(call: Call, request: ProviderRequest) {
  const auth = await accessToken(call);
  if ('failure' in auth) return { failure: auth.failure };
  return callProvider(call, {
    ...request,
    headers: { authorization: `Bearer ${auth.token}`, 'x-idempotency-key': call.idempotencyKey, ...request.headers },
  });
}

async function tokenize(call: Call, card: CardData): Promise<{ token: string } | { failure: ProviderResult }> {
  const response = await send(
    { ...call, idempotencyKey: undefined },
    {
      method: 'POST',
      path: '/v1/card_tokens',
      json: {
        card_number: card.number,
        expiration_month: card.expMonth,
        expiration_year: card.expYear,
        security_code: card.cvc ?? undefined,
        cardholder: card.holderName ? { name: card.holderName } : undefined,
      },
    },
  );
  if ('failure' in response) return response;
  const failure = fromCardToken(response);
  return failure ? { failure } : { token: field.str(response.body?.id) ?? '' };
}

function payer(request: AuthorizeRequest) {
  const customer = request.customer;
  return {
    email: customer?.email ?? undefined,
    first_name: customer?.name ?? undefined,
    identification: customer?.documentNumber ? { type: 'CPF', number: customer.documentNumber } : undefined,
  };
}

async function createPayment(
  call: Call,
  request: AuthorizeRequest,
  method: Record<string, unknown>,
): Promise<ProviderResult> {
  const response = await send(call, {
    method: 'POST',
    path: '/v1/payments',
    json: {
      transaction_amount: Number(toDecimal(request.amount, request.currency)),
      currency_id: request.currency,
      ...method,
      installments: method.token ? (request.installments ?? 1) : undefined,
      capture: request.capture,
      external_reference: request.reference,
      description: request.reference,
      payer: payer(request),
      // How a lookup tells this attempt's payment from others under the same external_reference (lookup.ts).
      metadata: { [KEY_METADATA]: call.idempotencyKey },
      // 3-D Secure (`not_supported` when left out): `optional` authenticates where the issuer supports it.
      ...(method.token && request.threeDs?.request
        ? { three_d_secure_mode: 'optional', callback_url: request.threeDs.returnUrl }
        : {}),
    },
  });
  return 'failure' in response ? response.failure : fromPayment(response);
}

async function authorizeCard(call: Call, request: AuthorizeRequest): Promise<ProviderResult> {
  const card = request.card;
  if (!card) return unsupportedMethod('card without card data');
  const methodId = paymentMethodIdOf(card.number);
  if (!methodId) return unsupportedMethod('card brand');
  const token = await tokenize(call, card);
  if ('failure' in token) return token.failure;
  return createPayment(call, request, { token: token.token, payment_method_id: methodId });
}

const paymentPath = (reference: string) => `/v1/payments/${encodeURIComponent(reference)}`;

/** How long after a payment was sent its absence from the search is trusted (past the index's usual lag). */
const SEARCH_GRACE_MS = 15 * 60_000;

export const providerCAdapter: ConnectorAdapter = {
  slug: 'provider_c',
  // Mercado Pago's payment search is an index that lags behind a payment being created; the payment itself (a
  // capture or cancel) and its refunds list are read directly and show at once.
  reads: {
    authorize: { seesInFlight: false, graceMs: SEARCH_GRACE_MS },
    verify: { seesInFlight: false, graceMs: SEARCH_GRACE_MS },
    capture: { seesInFlight: true },
    void: { seesInFlight: true },
    refund: { seesInFlight: true },
  },

  authorize: (call, request) =>
    withTransport(async () => {
      if (request.paymentMethod === 'card') return authorizeCard(call, request);
      if (request.paymentMethod === 'pix') return createPayment(call, request, { payment_method_id: 'pix' });
      if (request.paymentMethod === 'wallet')
        return createPayment(call, request, { payment_method_id: 'account_money' });
      return unsupportedMethod(request.paymentMethod);
    }),

  capture: (call, request) =>
    withTransport(async () => {
      const response = await send(call, {
        method: 'PUT',
        path: paymentPath(request.providerReference),
        json: { capture: true, transaction_amount: Number(toDecimal(request.amount, request.currency)) },
      });
      return 'failure' in response ? response.failure : fromUpdate(response, 'approved');
    }),

  void: (call, request) =>
    withTransport(async () => {
      const response = await send(call, {
        method: 'PUT',
        path: paymentPath(request.providerReference),
        json: { status: 'cancelled' },
      });
      return 'failure' in response ? response.failure : fromUpdate(response, 'cancelled');
    }),

  refund: (call, request) =>
    withTransport(async () => {
      const response = await send(call, {
        method: 'POST',
        path: `${paymentPath(request.providerReference)}/refunds`,
        json: {
          amount: Number(toDecimal(request.amount, request.currency)),
          metadata: { [KEY_METADATA]: call.idempotencyKey },
        },
      });
      return 'failure' in response ? response.failure : fromRefund(response);
    }),

  verifyCard: (call, request) =>
    withTransport(async () => {
      const authorized = await authorizeCard(call, {
        amount: 10 ** currencyExponent(request.currency),
        currency: request.currency,
        paymentMethod: 'card',
        card: request.card,
        capture: false,
        reference: request.reference,
      });
      if (authorized.outcome !== 'approved' || !authorized.providerReference) return authorized;
      // Release the hold; the verification stands even if the cancel fails (the hold then lapses by itself).
      await send(
        { ...call, idempotencyKey: `${call.idempotencyKey}:void` },
        { method: 'PUT', path: paymentPath(authorized.providerReference), json: { status: 'cancelled' } },
      );
      return authorized;
    }),

  // verifyCard's lookup finds its one-unit authorization (approved = verified); its hold was released or lapses.
  lookup: (call, request) => lookupRequest((sent) => send({ ...call, idempotencyKey: undefined }, sent), call, request),

  retrieve: (call, request) =>
    withTransport(async () => {
      const response = await send(
        { ...call, idempotencyKey: undefined },
        { method: 'GET', path: `/v1/payments/${encodeURIComponent(request.providerReference)}` },
      );
      return 'failure' in response ? response.failure : fromPayment(response);
    }),

  parseWebhook,

  testCredentials: (call) =>
    credentialCheck(async () => {
      const response = await send({ ...call, idempotencyKey: undefined }, { method: 'GET', path: '/v1/users/me' });
      if (!('failure' in response)) return response;
      // The token exchange failed: a 5xx there is an outage, anything else refused the client credentials.
      return { status: response.failure.rawCode?.startsWith('http_5') ? 503 : 401, body: null };
    }),
};
