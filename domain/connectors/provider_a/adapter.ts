/**
 * provider_a (Stripe-like) adapter: form-encoded PaymentIntents (confirm=true), SetupIntents for zero-amount
 * verification, `Authorization: Bearer <secret_key>` and the `Idempotency-Key` header. Cards are sent as a
 * PaymentMethod first (`POST /v1/payment_methods`; Stripe's API takes no raw card in `payment_method_data`), and
 * every intent and refund carries our idempotency key in its metadata: that is how an unknown outcome is looked up
 * (lookup.ts), since Stripe offers no read by idempotency key. The requests are checked against stripe-mock
 * (test/api/provider-a-stripe-mock.test.ts).
 */
import {
  type AuthorizeRequest,
  type CardData,
  type ConnectorAdapter,
  type ProviderCall,
  type ProviderResult,
  ProviderUnreachableError,
} from '../connector';
import type { ProviderACredentials } from '../credentials';
import {
  callProvider,
  credentialCheck,
  field,
  result,
  unsupportedMethod,
  withTransport,
  type ProviderRequest,
} from '../http';
import { LOOKUP_KEY, lookupRequest } from './lookup';
import { fromIntent, fromModification, fromRefund } from './transformers';
import { parseWebhook } from './webhook';

function send(call: Omit<ProviderCall, 'idempotencyKey'> & { idempotencyKey?: string }, request: ProviderRequest) {
  const { secret_key } = call.credentials as ProviderACredentials;
  return callProvider(call, {
    ...request,
    headers: { authorization: `Bearer ${secret_key}`, 'idempotency-key': call.idempotencyKey, ...request.headers },
  });
}

/** Our metadata on every intent and refund: the reference, and the key a lookup finds it by. */
const metadata = (call: Pick<ProviderCall, 'idempotencyKey'>, reference: string) => ({
  reference,
  [LOOKUP_KEY]: call.idempotencyKey,
});

/**
 * The card as a PaymentMethod (its own key, derived from the call's, so a retried call replays the same one). It
 * moves no money, so a failure here is a definitive one: nothing was charged. Returns the pm_ id or that failure.
 */
async function createPaymentMethod(
  call: ProviderCall,
  card: CardData,
  holder: { email?: string | null } = {},
): Promise<{ id: string } | { failure: ProviderResult }> {
  let response;
  try {
    response = await send(
      { ...call, idempotencyKey: `${call.idempotencyKey}:payment_method` },
      {
        method: 'POST',
        path: '/v1/payment_methods',
        form: {
          type: 'card',
          card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc ?? undefined },
          billing_details: { name: card.holderName ?? undefined, email: holder.email ?? undefined },
        },
      },
    );
  } catch (error) {
    if (error instanceof ProviderUnreachableError)
      return { failure: result('network_error', { rawCode: error.kind, rawMessage: error.message }) };
    throw error;
  }
  const id = response.status === 200 ? field.str(response.body?.id) : null;
  if (id) return { id };
  const answer = fromIntent(response, 'payment_intent');
  // A 5xx (unknown for a charge) cannot have charged anything here.
  return { failure: answer.outcome === 'unknown' ? { ...answer, outcome: 'processing_error' } : answer };
}

/** The intent's payment method: Link for wallets, a PaymentMethod created from the card otherwise. */
async function paymentMethodFor(
  call: ProviderCall,
  request: AuthorizeRequest,
): Promise<Record<string, unknown> | { failure: ProviderResult }> {
  if (request.paymentMethod === 'wallet') return { payment_method_data: { type: 'link' } };
  if (!request.card) return { failure: unsupportedMethod('card without card data') };
  const created = await createPaymentMethod(call, request.card, { email: request.customer?.email });
  return 'failure' in created ? created : { payment_method: created.id };
}

export const providerAAdapter: ConnectorAdapter = {
  slug: 'provider_a',
  // Stripe's reads are strongly consistent where it counts: an empty search is confirmed by the list of recent
  // intents, and an intent's captures, cancels and refunds (pending ones included) show on it at once.
  reads: {
    authorize: { seesInFlight: true },
    verify: { seesInFlight: true },
    capture: { seesInFlight: true },
    void: { seesInFlight: true },
    refund: { seesInFlight: true },
  },

  authorize: (call, request) =>
    withTransport(async () => {
      if (request.paymentMethod !== 'card' && request.paymentMethod !== 'wallet')
        return unsupportedMethod(request.paymentMethod);
      const method = await paymentMethodFor(call, request);
      if ('failure' in method) return method.failure as ProviderResult;
      const mit = request.recurring;
      const card = {
        ...(mit?.networkTransactionId ? { mit_exemption: { network_transaction_id: mit.networkTransactionId } } : {}),
        // `any`: authenticate whenever the card supports it; left out, Stripe's `automatic` lets the issuer decide.
        ...(request.threeDs?.request ? { request_three_d_secure: 'any' } : {}),
      };
      const response = await send(call, {
        method: 'POST',
        path: '/v1/payment_intents',
        form: {
          amount: request.amount,
          currency: request.currency.toLowerCase(),
          confirm: true,
          capture_method: request.capture ? 'automatic' : 'manual',
          ...method,
          metadata: metadata(call, request.reference),
          receipt_email: request.customer?.email ?? undefined,
          off_session: mit ? true : undefined,
          payment_method_options: Object.keys(card).length > 0 ? { card } : undefined,
          // Where Stripe sends the buyer after a 3-D Secure challenge (our return endpoint for this transaction).
          return_url: request.threeDs?.returnUrl,
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
            metadata: metadata(call, request.reference),
          },
        }),
      ),
    ),

  verifyCard: (call, request) =>
    withTransport(async () => {
      const created = await createPaymentMethod(call, request.card);
      if ('failure' in created) return created.failure;
      return fromIntent(
        await send(call, {
          method: 'POST',
          path: '/v1/setup_intents',
          form: {
            confirm: true,
            usage: 'off_session',
            payment_method: created.id,
            metadata: metadata(call, request.reference),
          },
        }),
        'setup_intent',
      );
    }),

  lookup: (call, request) => lookupRequest((read) => send({ ...call, idempotencyKey: undefined }, read), call, request),

  retrieve: (call, request) =>
    withTransport(async () =>
      fromIntent(
        await send(
          { ...call, idempotencyKey: undefined },
          {
            method: 'GET',
            path: `/v1/payment_intents/${encodeURIComponent(request.providerReference)}`,
            // Stripe returns latest_charge as an id unless expanded, and the 3-D Secure result lives on the charge.
            query: { 'expand[]': 'latest_charge' },
          },
        ),
        'payment_intent',
      ),
    ),

  parseWebhook,

  testCredentials: (call) =>
    credentialCheck(() => send({ ...call, idempotencyKey: undefined }, { method: 'GET', path: '/v1/balance' })),
};
