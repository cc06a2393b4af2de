/**
 * checkout (Checkout.com-like) adapter: /payments with `Authorization: Bearer <secret_key>`, `Cko-Idempotency-Key`,
 * processing_channel_id from the credentials, asynchronous (202) captures, voids and refunds. Wallet payments need
 * a wallet token the charge request does not carry yet, so they are reported unsupported.
 */
import type { CardData, ConnectorAdapter, ProviderCall } from '../connector';
import type { CheckoutCredentials } from '../credentials';
import { callProvider, credentialCheck, unsupportedMethod, withTransport, type ProviderRequest } from '../http';
import { KEY_METADATA } from '../lookup-reference';
import { lookupRequest } from './lookup';
import { fromAction, fromPayment } from './transformers';
import { parseWebhook } from './webhook';

function send(call: Omit<ProviderCall, 'idempotencyKey'> & { idempotencyKey?: string }, request: ProviderRequest) {
  const { secret_key } = call.credentials as CheckoutCredentials;
  return callProvider(call, {
    ...request,
    headers: { authorization: `Bearer ${secret_key}`, 'cko-idempotency-key': call.idempotencyKey },
  });
}

const channel = (call: Pick<ProviderCall, 'credentials'>) =>
  (call.credentials as CheckoutCredentials).processing_channel_id;

function cardSource(card: CardData) {
  return {
    type: 'card',
    number: card.number,
    expiry_month: card.expMonth,
    expiry_year: card.expYear,
    cvv: card.cvc ?? undefined,
    name: card.holderName ?? undefined,
  };
}

const actionPath = (id: string, action: string) => `/payments/${encodeURIComponent(id)}/${action}`;

/** How long after a payment was sent its absence from the payments list is trusted (past the list's usual lag). */
const PAYMENTS_GRACE_MS = 15 * 60_000;
/** Captures and voids are answered 202 and listed once processed, normally within minutes. */
const ACTIONS_GRACE_MS = 60 * 60_000;
/** Refunds are answered 202 and listed only once decided, which can take the provider a day. */
const REFUNDS_GRACE_MS = 24 * 60 * 60_000;

export const checkoutAdapter: ConnectorAdapter = {
  slug: 'checkout',
  // The payments list by reference lags behind a payment being created, and the actions list shows a capture, void
  // or refund only once Checkout.com has decided it: finding nothing is trusted only after a grace period.
  reads: {
    authorize: { seesInFlight: false, graceMs: PAYMENTS_GRACE_MS },
    verify: { seesInFlight: false, graceMs: PAYMENTS_GRACE_MS },
    capture: { seesInFlight: false, graceMs: ACTIONS_GRACE_MS },
    void: { seesInFlight: false, graceMs: ACTIONS_GRACE_MS },
    refund: { seesInFlight: false, graceMs: REFUNDS_GRACE_MS },
  },

  authorize: (call, request) =>
    withTransport(async () => {
      if (request.paymentMethod !== 'card' || !request.card) return unsupportedMethod(request.paymentMethod);
      const mit = request.recurring;
      return fromPayment(
        await send(call, {
          method: 'POST',
          path: '/payments',
          json: {
            source: cardSource(request.card),
            amount: request.amount,
            currency: request.currency,
            reference: request.reference,
            capture: request.capture,
            processing_channel_id: channel(call),
            customer: request.customer
              ? { email: request.customer.email ?? undefined, name: request.customer.name ?? undefined }
              : undefined,
            payment_type: mit ? 'Unscheduled' : 'Regular',
            // How a lookup tells this attempt's payment from others under the same reference (lookup.ts).
            metadata: { [KEY_METADATA]: call.idempotencyKey },
            merchant_initiated: mit ? true : undefined,
            previous_payment_id: mit?.networkTransactionId ?? undefined,
            // 3-D Secure: the buyer comes back to our return endpoint whichever way the challenge ends.
            ...(request.threeDs?.request
              ? {
                  '3ds': { enabled: true },
                  success_url: request.threeDs.returnUrl,
                  failure_url: request.threeDs.returnUrl,
                }
              : {}),
          },
        }),
      );
    }),

  capture: (call, request) =>
    withTransport(async () =>
      fromAction(
        await send(call, {
          method: 'POST',
          path: actionPath(request.providerReference, 'captures'),
          json: { amount: request.amount },
        }),
        'capture',
        request.providerReference,
      ),
    ),

  void: (call, request) =>
    withTransport(async () =>
      fromAction(
        await send(call, {
          method: 'POST',
          path: actionPath(request.providerReference, 'voids'),
          json: {},
        }),
        'void',
        request.providerReference,
      ),
    ),

  refund: (call, request) =>
    withTransport(async () =>
      fromAction(
        await send(call, {
          method: 'POST',
          path: actionPath(request.providerReference, 'refunds'),
          json: { amount: request.amount, reference: request.reference },
        }),
        'refund',
        request.providerReference,
      ),
    ),

  verifyCard: (call, request) =>
    withTransport(async () =>
      fromPayment(
        await send(call, {
          method: 'POST',
          path: '/payments',
          json: {
            source: cardSource(request.card),
            amount: 0,
            currency: request.currency,
            reference: request.reference,
            processing_channel_id: channel(call),
            metadata: { [KEY_METADATA]: call.idempotencyKey },
          },
        }),
      ),
    ),

  lookup: (call, request) => lookupRequest((sent) => send({ ...call, idempotencyKey: undefined }, sent), call, request),

  retrieve: (call, request) =>
    withTransport(async () =>
      fromPayment(
        await send(
          { ...call, idempotencyKey: undefined },
          { method: 'GET', path: `/payments/${encodeURIComponent(request.providerReference)}` },
        ),
      ),
    ),

  parseWebhook,

  testCredentials: (call) =>
    credentialCheck(() =>
      send(
        { ...call, idempotencyKey: undefined },
        {
          method: 'GET',
          path: '/payment-methods',
          query: { processing_channel_id: channel(call) },
        },
      ),
    ),
};
