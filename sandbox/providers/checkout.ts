/**
 * checkout speaks a Checkout.com-like API under /checkout: `Authorization: Bearer sk_sbox_…`, `Cko-Idempotency-Key`,
 * processing_channel_id in the body, 201 with approved/status Authorized|Captured|Declined|Card Verified and a
 * five-digit response_code (10000 approved, 2xxxx soft, 3xxxx hard, 4xxxx risk), 202 for asynchronous
 * captures/voids/refunds, a bodiless 401 for a bad key, and webhooks signed `Cko-Signature: <hex HMAC-SHA256>`.
 * The routes and their checks are here; what they answer (payment, actions, webhook) is in checkout-shapes.ts.
 */
import { cardFacts } from '../cards';
import { capture, refund, voidPayment, type PaymentInput, type SandboxContext } from '../engine';
import { bearer, header, json, read, Router, type Reply, type SandboxRequest } from '../http';
import { idempotent, type Processed } from '../idempotency';
import { randomChars, randomHex, type Operation, type Payment } from '../store';
import {
  accountFromSecret,
  authorizeFlow,
  draft,
  ISO_CURRENCY,
  looksInvalid,
  lookupLags,
  lookupOverride,
  operationOverride,
  paymentFields,
  rejected,
  type ProviderFactory,
} from './common';
import { actionId, actionsOf, paymentBody, renderWebhook } from './checkout-shapes';

const requestId = () => randomHex(16);
const invalid = (...codes: string[]): Reply =>
  json(422, { request_id: requestId(), error_type: 'request_invalid', error_codes: codes });
const serverError = (): Reply => json(500, { request_id: requestId(), error_type: 'internal_error' });
const notFound = (): Reply => ({ status: 404 });

/** Checkout.com's metadata: string values kept as sent (returned on the payment). */
function metadataFrom(value: unknown): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, item] of Object.entries(read.obj(value))) if (typeof item === 'string') kept[key] = item;
  return kept;
}

/**
 * `3ds: {enabled: true}` asks Checkout.com to authenticate; the buyer returns to success_url or failure_url with
 * `cko-session-id` appended. Without it no 3-D Secure runs (an issuer that demands it declines 20154).
 */
function threeDsRequest(body: Record<string, unknown>): PaymentInput['threeDs'] {
  if (read.bool(read.obj(body['3ds']).enabled) !== true) return undefined;
  const session = `sid_${randomChars(26, 'lower')}`;
  const back = (url: string | null) => {
    if (!url) return null;
    const parsed = new URL(url);
    parsed.searchParams.set('cko-session-id', session);
    return parsed.toString();
  };
  return {
    request: true,
    returnUrl: back(read.str(body.success_url)),
    failureUrl: back(read.str(body.failure_url)),
    offSession: read.bool(body.merchant_initiated) === true,
  };
}

export const checkout: ProviderFactory = (ctx: SandboxContext) => {
  const { store } = ctx;
  /** Each payment's metadata as sent, by payment id. */
  const metadataOf = new Map<string, Record<string, string>>();

  async function guarded(
    request: SandboxRequest,
    operation: Operation,
    run: (account: string, body: Record<string, unknown>) => Promise<Processed>,
  ) {
    const key = request.method === 'GET' ? null : (header(request, 'cko-idempotency-key') ?? null);
    const refuse = (processed: Processed) => {
      store.record({
        provider: 'checkout',
        account: null,
        idempotency_key: key,
        http_status: (processed.reply as Reply).status,
        ...processed.entry,
      });
      return processed.reply;
    };
    const secret = bearer(request);
    // Checkout.com answers a bad key with a bare 401: no body at all.
    if (!secret || !/^sk_sbox_[A-Za-z0-9-]+$/.test(secret) || looksInvalid(secret))
      return refuse(rejected(operation, 'unauthorized', { status: 401 }));
    if (!request.body) return refuse(rejected(operation, 'malformed', invalid('request_body_malformed')));
    const account = accountFromSecret('ent_', secret);
    const body = request.body;
    return idempotent(
      store,
      {
        provider: 'checkout',
        account,
        key,
        request: { path: request.path, body },
        conflict: () => json(409, { request_id: requestId(), error_type: 'idempotency_key_conflict' }),
      },
      () => run(account, body),
    );
  }

  const paymentView = (payment: Payment) =>
    paymentBody(payment, { baseUrl: ctx.baseUrl(), metadata: metadataOf.get(payment.id) ?? {} });

  /**
   * A capture, void or refund, answered 202. Its forced scenario (control POST /overrides with the operation) plays
   * `slow`, `processing_error` (a 5xx, nothing processed) or `approved_server_error` (processed, answered 5xx).
   */
  function action(operation: 'capture' | 'void' | 'refund') {
    return (request: SandboxRequest) =>
      guarded(request, operation, async (account, body) => {
        const payment = store.payments.get(request.params.id);
        if (!payment || payment.account !== account) return rejected(operation, 'not_found', notFound());
        const forced = await operationOverride(ctx, 'checkout', account, operation);
        if (forced === 'processing_error')
          return rejected(operation, 'processing_error', serverError(), paymentFields(payment));
        const id = actionId();
        const amount = read.int(body.amount);
        const reference = read.str(body.reference);
        const result =
          operation === 'capture'
            ? capture(payment, amount)
            : operation === 'void'
              ? voidPayment(payment)
              : refund(ctx, payment, { id, amount, reference, asynchronous: true });
        if (!result.ok) {
          const reply =
            result.error === 'amount_too_large'
              ? invalid(`${operation}_amount_invalid`)
              : json(403, { request_id: requestId(), error_type: 'action_not_allowed' });
          return rejected(operation, result.error, reply, paymentFields(payment));
        }
        const value =
          operation === 'capture'
            ? payment.capturedAmount
            : operation === 'refund'
              ? (result.value as { amount: number }).amount
              : null;
        const reply = json(202, {
          action_id: id,
          reference,
          _links: { payment: { href: `${ctx.baseUrl()}/checkout/payments/${payment.id}` } },
        });
        const entry = draft(operation, {
          ...paymentFields(payment, value),
          reference: reference ?? payment.reference,
          provider_reference: operation === 'refund' ? id : payment.id,
          outcome: operation === 'refund' ? 'pending' : 'approved',
        });
        // Done and kept under the key, but the caller gets a 5xx: the unknown outcome a lookup must resolve.
        if (forced === 'approved_server_error') return { reply: serverError(), entry, stored: reply };
        return { reply, entry };
      });
  }

  const router = new Router()
    .on('POST', '/payments', (request) =>
      guarded(request, 'authorize', async (account, body) => {
        const amount = read.int(body.amount);
        const currency = read.str(body.currency);
        const channel = read.str(body.processing_channel_id);
        if (!channel || !/^pc_[A-Za-z0-9]+$/.test(channel) || looksInvalid(channel))
          return rejected('authorize', 'processing_channel_id_invalid', invalid('processing_channel_id_invalid'));
        if (amount === null || amount < 0) return rejected('authorize', 'amount_invalid', invalid('amount_invalid'));
        if (!currency || !ISO_CURRENCY.test(currency))
          return rejected('authorize', 'currency_invalid', invalid('currency_invalid'));
        const source = read.obj(body.source);
        let chosen: { method: 'card' | 'wallet'; card: ReturnType<typeof cardFacts> | null };
        if (source.type === 'card') {
          const number = read.str(source.number);
          const expMonth = read.int(source.expiry_month);
          const expYear = read.int(source.expiry_year);
          if (!number || !/^\d{12,19}$/.test(number))
            return rejected('authorize', 'card_number_invalid', invalid('card_number_invalid'));
          if (expMonth === null || expYear === null)
            return rejected('authorize', 'card_expiry_invalid', invalid('card_expiry_month_invalid'));
          chosen = { method: 'card', card: cardFacts({ number, expMonth, expYear }) };
        } else if (source.type === 'token' && typeof source.token === 'string' && source.token.startsWith('tok_')) {
          chosen = { method: 'wallet', card: null };
        } else return rejected('authorize', 'source_invalid', invalid('payment_source_required'));
        if (amount === 0 && chosen.method !== 'card')
          return rejected('authorize', 'amount_invalid', invalid('amount_invalid'));
        const id = `pay_${randomChars(26, 'lower')}`;
        metadataOf.set(id, metadataFrom(body.metadata));
        return authorizeFlow(ctx, {
          operation: amount === 0 ? 'verify' : 'authorize',
          serverError,
          input: {
            id,
            provider: 'checkout',
            account,
            reference: read.str(body.reference),
            amount,
            currency: currency.toUpperCase(),
            method: chosen.method,
            card: chosen.card,
            capture: read.bool(body.capture) !== false,
            threeDs: threeDsRequest(body),
          },
          render: (payment) =>
            json(payment.state === 'pending' || payment.state === 'requires_action' ? 202 : 201, paymentView(payment)),
        });
      }),
    )
    // Checkout.com's payment list by reference, newest first, paged by limit/skip.
    .on('GET', '/payments', (request) =>
      guarded(request, 'lookup', async (account) => {
        const forced = lookupOverride(ctx, { provider: 'checkout', account }, serverError);
        if (forced) return forced;
        const reference = request.query.get('reference');
        if (!reference) return rejected('lookup', 'reference_required', invalid('reference_required'));
        const limit = Math.min(Math.max(Number(request.query.get('limit') ?? 10) || 10, 1), 100);
        const skip = Math.max(Number(request.query.get('skip') ?? 0) || 0, 0);
        // A lagging read (the lookup override `lag`) does not list the reference's payments yet.
        const lagging = lookupLags(ctx, { provider: 'checkout', account });
        const matching = [...store.payments.values()]
          .filter((payment) => !lagging && payment.account === account && payment.reference === reference)
          .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
        return {
          reply: json(200, {
            limit,
            skip,
            total_count: matching.length,
            data: matching.slice(skip, skip + limit).map(paymentView),
          }),
          entry: draft('lookup', { outcome: 'approved', reference, reason: `found_${matching.length}` }),
        };
      }),
    )
    .on('GET', '/payments/:id/actions', (request) =>
      guarded(request, 'lookup', async (account) => {
        const payment = store.payments.get(request.params.id);
        if (!payment || payment.account !== account) return rejected('lookup', 'not_found', notFound());
        return {
          reply: json(200, actionsOf(store, payment, lookupLags(ctx, { provider: 'checkout', account }))),
          entry: draft('lookup', { ...paymentFields(payment), outcome: 'approved' }),
        };
      }),
    )
    .on('GET', '/payments/:id', (request) =>
      guarded(request, 'lookup', async (account) => {
        const payment = store.payments.get(request.params.id);
        if (!payment || payment.account !== account) return rejected('lookup', 'not_found', notFound());
        return {
          reply: json(200, paymentView(payment)),
          entry: draft('lookup', { ...paymentFields(payment), outcome: 'approved' }),
        };
      }),
    )
    .on('POST', '/payments/:id/captures', action('capture'))
    .on('POST', '/payments/:id/voids', action('void'))
    .on('POST', '/payments/:id/refunds', action('refund'))
    .on('GET', '/payment-methods', (request) =>
      guarded(request, 'test_credentials', async () => {
        const channel = request.query.get('processing_channel_id') ?? '';
        if (!/^pc_[A-Za-z0-9]+$/.test(channel) || looksInvalid(channel))
          return rejected(
            'test_credentials',
            'processing_channel_id_invalid',
            invalid('processing_channel_id_invalid'),
          );
        return {
          reply: json(200, {
            methods: [
              { type: 'card', schemes: ['visa', 'mastercard', 'amex'] },
              { type: 'googlepay' },
              { type: 'applepay' },
            ],
          }),
          entry: draft('test_credentials', { outcome: 'approved' }),
        };
      }),
    );

  return {
    slug: 'checkout',
    router,
    accountOf: (credentials) =>
      typeof credentials.secret_key === 'string' ? accountFromSecret('ent_', credentials.secret_key) : null,
    webhook: (event, payment, refundRecord, endpoint) => renderWebhook(event, payment, refundRecord, endpoint.secret),
  };
};
