/**
 * provider_a (Stripe-like) adapter: form-encoded PaymentIntents (confirm=true), SetupIntents for zero-amount
 * verification, `Authorization: Bearer <secret_key>` and the `Idempotency-Key` header.
 */
import type { AuthorizeRequest, CardData, ConnectorAdapter, ProviderCall } from '../connector';
import type { ProviderACredentials } from '../credentials';
import {
  callProvider,
  credentialCheck,
  lookupByKey,
  unsupportedMethod,
  withTransport,
  type ProviderRequest,
} from '../http';
import { fromIntent, fromModification, fromRefund } from './transformers';
import { parseWebhook } from './webhook';

function send(call: Omit<ProviderCall, 'idempotencyKey'> & { idempotencyKey?: string }, request: ProviderRequest) {
  const { secret_key } = call.credentials as ProviderACredentials;
  return callProvider(call, {
    ...request,
    headers: { authorization: `Bearer ${secret_key}`, 'idempotency-key': call.idempotencyKey, ...request.headers },
  });
}

function cardData(card: CardData, holder: { email?: string | null } = {}) {
  return {
    type: 'card',
    card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc ?? undefined },
    billing_details: { name: card.holderName ?? undefined, email: holder.email ?? undefined },
  };
}

function paymentMethodData(request: AuthorizeRequest) {
  if (request.paymentMethod === 'wallet') return { type: 'link' };
  return request.card ? cardData(request.card, { email: request.customer?.email }) : null;
}

export const providerAAdapter: ConnectorAdapter = {
  slug: 'provider_a',

  authorize: (call, request) =>
    withTransport(async () => {
      if (request.paymentMethod !== 'card' && request.paymentMethod !== 'wallet')
        return unsupportedMethod(request.paymentMethod);
      const data = paymentMethodData(request);
      if (!data) return unsupportedMethod('card without card data');
      const mit = request.recurring;
      const response = await send(call, {
        method: 'POST',
        path: '/v1/payment_intents',
        form: {
          amount: request.amount,
          currency: request.currency.toLowerCase(),
          confirm: true,
          capture_method: request.capture ? 'automatic' : 'manual',
          payment_method_data: data,
          metadata: { reference: request.reference },
          receipt_email: request.customer?.email ?? undefined,
          off_session: mit ? true : undefined,
          payment_method_options: mit?.networkTransactionId
            ? { card: { mit_exemption: { network_transaction_id: mit.networkTransactionId } } }
            : undefined,
          expand: ['latest_charge'],
        },
      });
      return fromIntent(response, 'payment_intent');
    }),

  capture: (call, request) =>
    withTransport(async () =>
      fromModification(
        await send(call, {
          method: 'POST',
          path: `/v1/payment_intents/${encodeURIComponent(request.providerReference)}/capture`,
          form: { amount_to_capture: request.amount },
        }),
        'succeeded',
      ),
    ),

  void: (call, request) =>
    withTransport(async () =>
      fromModification(
        await send(call, {
          method: 'POST',
          path: `/v1/payment_intents/${encodeURIComponent(request.providerReference)}/cancel`,
          form: {},
        }),
        'canceled',
      ),
    ),

  refund: (call, request) =>
    withTransport(async () =>
      fromRefund(
        await send(call, {
          method: 'POST',
          path: '/v1/refunds',
          form: {
            payment_intent: request.providerReference,
            amount: request.amount,
            metadata: { reference: request.reference },
          },
        }),
      ),
    ),

  verifyCard: (call, request) =>
    withTransport(async () =>
      fromIntent(
        await send(call, {
          method: 'POST',
          path: '/v1/setup_intents',
          form: {
            confirm: true,
            usage: 'off_session',
            payment_method_data: cardData(request.card),
            metadata: { reference: request.reference },
          },
        }),
        'setup_intent',
      ),
    ),

  lookup: (call, request) =>
    lookupByKey(
      () =>
        send(
          { ...call, idempotencyKey: undefined },
          { method: 'GET', path: `/v1/idempotency_keys/${encodeURIComponent(call.idempotencyKey)}` },
        ),
      (response) => {
        if (request.operation === 'capture') return fromModification(response, 'succeeded');
        if (request.operation === 'void') return fromModification(response, 'canceled');
        if (request.operation === 'refund') return fromRefund(response);
        return fromIntent(response, request.operation === 'verify' ? 'setup_intent' : 'payment_intent');
      },
    ),

  retrieve: (call, request) =>
    withTransport(async () =>
      fromIntent(
        await send(
          { ...call, idempotencyKey: undefined },
          { method: 'GET', path: `/v1/payment_intents/${encodeURIComponent(request.providerReference)}` },
        ),
        'payment_intent',
      ),
    ),

  parseWebhook,

  testCredentials: (call) =>
    credentialCheck(() => send({ ...call, idempotencyKey: undefined }, { method: 'GET', path: '/v1/balance' })),
};
