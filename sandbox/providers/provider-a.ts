/**
 * provider_a speaks a Stripe-like API under /provider_a: form-encoded (or JSON) PaymentMethods, PaymentIntents and
 * SetupIntents, `Authorization: Bearer sk_test_…`, `Idempotency-Key`, card declines as HTTP 402 card_error with a
 * decline_code, webhooks signed Standard-Webhooks style (webhook-id / webhook-timestamp / webhook-signature, whsec_
 * secret). Like Stripe it keeps no readable record of idempotency keys: an earlier request is found through what
 * Stripe offers — PaymentIntent search on metadata, the lists of PaymentIntents, SetupIntents and refunds
 * (./provider-a-lookups.ts). This file holds the requests that write; the objects it answers with and its webhook
 * events are in ./provider-a-shapes.ts.
 */
import { cardFacts, type CardFacts, type Scenario } from '../cards';
import { capture, refund, voidPayment, type SandboxContext } from '../engine';
import { bearer, HANG, header, json, read, Router, type Reply, type SandboxRequest } from '../http';
import { idempotent, type Processed } from '../idempotency';
import { randomChars } from '../store';
import {
  accountFromSecret,
  authorizeFlow,
  draft,
  ISO_CURRENCY,
  looksInvalid,
  operationOverride,
  paymentFields,
  rejected,
  type ProviderFactory,
} from './common';
import { lookupRoutes } from './provider-a-lookups';
import { err, invalid, missing, serverError, stripeObjects } from './provider-a-shapes';

export const providerA: ProviderFactory = (ctx: SandboxContext) => {
  const { store } = ctx;
  /** Each intent's and refund's metadata as sent (Stripe returns it verbatim and searches on it). */
  const metadataOf = new Map<string, Record<string, string>>();
  /** PaymentMethods: the card reduced to its facts (no number is kept), and the account that created it. */
  const paymentMethods = new Map<string, { account: string; card: CardFacts; expMonth: number; expYear: number }>();

  /**
   * PaymentIntents being confirmed right now (a slow authorization): Stripe creates the intent before confirming it,
   * so the lists and search show it as requires_confirmation until the answer, and a lookup knows it is in flight.
   */
  const confirming = new Map<string, { account: string; amount: number; currency: string; created: number }>();

  const metadataFor = (id: string, reference: string | null) => metadataOf.get(id) ?? (reference ? { reference } : {});
  const objects = stripeObjects(metadataFor);
  const { paymentIntent, intentReply, refundObject, stateError, webhook } = objects;

  /** The key's account, or the 401 Stripe gives for a missing/unknown key. */
  function authenticate(request: SandboxRequest): { account: string } | { reply: Reply } {
    const key = bearer(request);
    if (!key || !/^sk_test_[A-Za-z0-9]+$/.test(key) || looksInvalid(key)) {
      const shown = key ? `${key.slice(0, 8)}****${key.slice(-4)}` : '';
      return {
        reply: err(401, {
          type: 'invalid_request_error',
          message: key ? `Invalid API Key provided: ${shown}` : 'You did not provide an API key.',
        }),
      };
    }
    return { account: accountFromSecret('acct_', key) };
  }

  function conflict(kind: 'mismatch' | 'in_flight'): Reply {
    return kind === 'mismatch'
      ? err(400, {
          type: 'idempotency_error',
          message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.',
        })
      : err(409, {
          type: 'idempotency_error',
          code: 'idempotency_key_in_use',
          message: 'There is currently another in-progress request using this Idempotent Key.',
        });
  }

  /** Authenticates, then runs the operation under the request's Idempotency-Key. */
  async function guarded(
    request: SandboxRequest,
    operation: Parameters<typeof rejected>[0],
    run: (account: string, forced: Scenario | null) => Promise<Processed>,
  ) {
    const auth = authenticate(request);
    if ('reply' in auth) {
      store.record({
        provider: 'provider_a',
        account: null,
        idempotency_key: header(request, 'idempotency-key') ?? null,
        http_status: 401,
        ...rejected(operation, 'unauthorized', auth.reply).entry,
      });
      return auth.reply;
    }
    const forced =
      operation === 'capture' || operation === 'void' || operation === 'refund'
        ? await operationOverride(ctx, 'provider_a', auth.account, operation)
        : null;
    // Answered 5xx without processing: nothing is kept under the key, so a lookup finds nothing.
    if (forced === 'processing_error') {
      store.record({
        provider: 'provider_a',
        account: auth.account,
        idempotency_key: header(request, 'idempotency-key') ?? null,
        http_status: 500,
        ...rejected(operation, 'processing_error', serverError()).entry,
      });
      return serverError();
    }
    return idempotent(
      store,
      {
        provider: 'provider_a',
        account: auth.account,
        key: request.method === 'GET' ? null : (header(request, 'idempotency-key') ?? null),
        request: { path: request.path, body: request.body },
        conflict,
      },
      async () => {
        const processed = await run(auth.account, forced);
        // Done and kept under the key, but the caller gets a 5xx: the unknown outcome a lookup must resolve.
        if (forced === 'approved_server_error' && processed.reply !== HANG && processed.reply.status < 300)
          return { ...processed, reply: serverError(), stored: processed.reply };
        return processed;
      },
    );
  }

  /**
   * `payment_method` (a pm_ of this account) → its card facts; `payment_method_data[type]=link` → a wallet. Like
   * Stripe, a raw card in `payment_method_data` is refused: cards are created as PaymentMethods first.
   */
  function method(
    body: Record<string, unknown>,
    account: string,
  ): { method: 'card' | 'wallet'; card: CardFacts | null } | string {
    const id = read.str(body.payment_method);
    if (id) {
      const stored = paymentMethods.get(id);
      return stored && stored.account === account ? { method: 'card', card: stored.card } : 'payment_method';
    }
    return read.obj(body.payment_method_data).type === 'link'
      ? { method: 'wallet', card: null }
      : 'payment_method_data[type]';
  }

  /** Metadata as Stripe keeps it: string values only. */
  function keepMetadata(id: string, value: unknown): void {
    const kept: Record<string, string> = {};
    for (const [key, item] of Object.entries(read.obj(value))) {
      const text = read.str(item);
      if (text !== null) kept[key] = text;
    }
    metadataOf.set(id, kept);
  }

  const router = new Router()
    .on('POST', '/v1/payment_intents', (request) =>
      guarded(request, 'authorize', async (account) => {
        const body = request.body ?? {};
        const amount = read.int(body.amount);
        const currency = read.str(body.currency);
        if (amount === null || amount < 1)
          return rejected('authorize', 'invalid_amount', invalid('amount', 'Invalid positive integer'));
        if (!currency || !ISO_CURRENCY.test(currency))
          return rejected('authorize', 'invalid_currency', invalid('currency', 'Invalid currency'));
        const chosen = method(body, account);
        if (typeof chosen === 'string')
          return rejected('authorize', 'invalid_payment_method', invalid(chosen, 'Invalid payment method'));
        const reference = read.str(read.obj(body.metadata).reference);
        const id = `pi_${randomChars(24)}`;
        keepMetadata(id, body.metadata);
        const expand = Array.isArray(body.expand) && body.expand.includes('latest_charge');
        const card = read.obj(read.obj(body.payment_method_options).card);
        const mitReference = read.str(read.obj(card.mit_exemption).network_transaction_id);
        // request_three_d_secure: `any` or `challenge` asks for 3-D Secure; `automatic` (the default) leaves it to
        // the issuer, which may still demand it. A merchant-initiated (off_session) charge is never challenged.
        const threeDs = {
          request: ['any', 'challenge'].includes(read.str(card.request_three_d_secure) ?? 'automatic'),
          returnUrl: read.str(body.return_url),
          offSession: body.off_session === true || body.off_session === 'true',
        };
        confirming.set(id, { account, amount, currency, created: Math.floor(Date.now() / 1000) });
        const processed = await authorizeFlow(ctx, {
          operation: 'authorize',
          serverError,
          input: {
            id,
            provider: 'provider_a',
            account,
            reference,
            amount,
            currency: currency.toUpperCase(),
            method: chosen.method,
            card: chosen.card,
            capture: body.capture_method !== 'manual',
            threeDs,
          },
          render: (payment) => intentReply(payment, expand, 'payment_intent'),
        }).finally(() => confirming.delete(id));
        return { ...processed, entry: { ...processed.entry, mit_reference: mitReference } };
      }),
    )
    .on('POST', '/v1/setup_intents', (request) =>
      guarded(request, 'verify', async (account) => {
        const chosen = method(request.body ?? {}, account);
        if (typeof chosen === 'string' || !chosen.card)
          return rejected('verify', 'invalid_payment_method', invalid('payment_method', 'A card is required'));
        const id = `seti_${randomChars(24)}`;
        keepMetadata(id, request.body?.metadata);
        return authorizeFlow(ctx, {
          operation: 'verify',
          serverError,
          input: {
            id,
            provider: 'provider_a',
            account,
            reference: read.str(read.obj(request.body?.metadata).reference),
            amount: 0,
            currency: 'USD',
            method: 'card',
            card: chosen.card,
            capture: false,
          },
          render: (payment) => intentReply(payment, false, 'setup_intent'),
        });
      }),
    )
    .on('POST', '/v1/payment_methods', (request) =>
      guarded(request, 'tokenize', async (account) => {
        const body = request.body ?? {};
        const card = read.obj(body.card);
        const number = read.str(card.number);
        const expMonth = read.int(card.exp_month);
        const expYear = read.int(card.exp_year);
        if (body.type !== 'card') return rejected('tokenize', 'invalid_type', invalid('type', 'Invalid type'));
        if (!number || expMonth === null || expYear === null)
          return rejected('tokenize', 'invalid_card', invalid('card', 'Missing card number or expiry'));
        const facts = cardFacts({ number, expMonth, expYear });
        const id = `pm_${randomChars(24)}`;
        paymentMethods.set(id, { account, card: facts, expMonth, expYear });
        return {
          reply: json(200, {
            id,
            object: 'payment_method',
            type: 'card',
            card: { brand: facts.brand, last4: facts.last4, exp_month: expMonth, exp_year: expYear },
            billing_details: read.obj(body.billing_details),
            created: Math.floor(Date.now() / 1000),
            livemode: false,
            metadata: {},
          }),
          entry: draft('tokenize', { outcome: 'approved', card_last4: facts.last4, provider_reference: id }),
        };
      }),
    )
    .on('POST', '/v1/payment_intents/:id/capture', (request) =>
      guarded(request, 'capture', async (account) => {
        const payment = store.payments.get(request.params.id);
        if (!payment || payment.account !== account)
          return rejected('capture', 'not_found', missing(request.params.id));
        const result = capture(payment, read.int(request.body?.amount_to_capture));
        if (!result.ok)
          return rejected('capture', result.error, stateError(payment, result.error), paymentFields(payment));
        return {
          reply: json(200, paymentIntent(payment, false)),
          entry: draft('capture', { ...paymentFields(payment, payment.capturedAmount), outcome: 'approved' }),
        };
      }),
    )
    .on('POST', '/v1/payment_intents/:id/cancel', (request) =>
      guarded(request, 'void', async (account) => {
        const payment = store.payments.get(request.params.id);
        if (!payment || payment.account !== account) return rejected('void', 'not_found', missing(request.params.id));
        const result = voidPayment(payment);
        if (!result.ok)
          return rejected('void', result.error, stateError(payment, result.error), paymentFields(payment));
        return {
          reply: json(200, paymentIntent(payment, false)),
          entry: draft('void', { ...paymentFields(payment), outcome: 'approved' }),
        };
      }),
    )
    .on('POST', '/v1/refunds', (request) =>
      guarded(request, 'refund', async (account, forced) => {
        const body = request.body ?? {};
        const id = read.str(body.payment_intent) ?? '';
        const payment = store.payments.get(id);
        if (!payment || payment.account !== account) return rejected('refund', 'not_found', missing(id));
        const refundId = `re_${randomChars(24)}`;
        keepMetadata(refundId, body.metadata);
        const result = refund(ctx, payment, {
          id: refundId,
          amount: read.int(body.amount),
          reference: read.str(read.obj(body.metadata).reference),
          // Stripe answers some refunds `pending` and decides them later (refund.updated): the `review` override.
          asynchronous: forced === 'review',
        });
        if (!result.ok)
          return rejected('refund', result.error, stateError(payment, result.error), paymentFields(payment));
        const record = result.value;
        return {
          reply: json(200, refundObject(record)),
          entry: draft('refund', {
            ...paymentFields(payment, record.amount),
            reference: record.reference,
            provider_reference: record.id,
            outcome: record.state === 'failed' ? 'declined' : record.state === 'pending' ? 'pending' : 'approved',
          }),
        };
      }),
    )
    .on('GET', '/v1/balance', (request) =>
      guarded(request, 'test_credentials', async () => ({
        reply: json(200, {
          object: 'balance',
          available: [{ amount: 0, currency: 'usd' }],
          pending: [{ amount: 0, currency: 'usd' }],
          livemode: false,
        }),
        entry: draft('test_credentials', { outcome: 'approved' }),
      })),
    );
  lookupRoutes(router, { ctx, guarded, objects, metadataFor, confirming });

  return {
    slug: 'provider_a',
    router,
    accountOf: (credentials) =>
      typeof credentials.secret_key === 'string' ? accountFromSecret('acct_', credentials.secret_key) : null,
    webhook,
  };
};
