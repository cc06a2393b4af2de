/**
 * provider_c speaks a Mercado Pago-like API under /provider_c: an access token (`Bearer APP_USR-…`) or OAuth
 * client credentials exchanged at /oauth/token, card tokenization (/v1/card_tokens) before /v1/payments, decimal
 * transaction_amount, mandatory `X-Idempotency-Key`, status approved/authorized/rejected/pending/cancelled with a
 * status_detail (cc_rejected_*), pix QR codes in point_of_interaction, and notifications signed in `x-signature`
 * (provider-c-shapes.ts).
 */
import { cardFacts, type CardFacts } from '../cards';
import { capture, refund, voidPayment, type SandboxContext } from '../engine';
import { bearer, header, json, read, Router, type Reply, type SandboxRequest } from '../http';
import { idempotent, type Processed } from '../idempotency';
import { decimalToMinor } from '../money';
import { numericId, randomHex, type Operation, type Payment } from '../store';
import {
  accountFromSecret,
  authorizeFlow,
  draft,
  looksInvalid,
  lookupLags,
  lookupOverride,
  paymentFields,
  rejected,
  type ProviderFactory,
} from './common';
import { numberFrom, paymentObject, refundObject, renderWebhook } from './provider-c-shapes';

const error = (
  status: number,
  message: string,
  code: string,
  cause: { code: string; description: string }[] = [],
): Reply => json(status, { message, error: code, status, cause });
/** A 400 naming one cause, as the real API reports field problems. */
const badRequest = (message: string, cause: string, description: string) =>
  error(400, message, 'bad_request', [{ code: cause, description }]);
const serverError = () => error(500, 'internal_error', 'internal_server_error');
const notFound = () => error(404, 'Payment not found', 'not_found');
const CARD_BRANDS = new Set(['visa', 'master', 'amex', 'elo', 'hipercard']);

/** Mercado Pago's metadata: string keys kept as sent (it returns them on the payment and refund objects). */
function metadataFrom(value: unknown): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, item] of Object.entries(read.obj(value))) if (typeof item === 'string') kept[key] = item;
  return kept;
}

export const providerC: ProviderFactory = (ctx: SandboxContext) => {
  const { store } = ctx;
  /** Each payment's and refund's metadata as sent, by id. */
  const metadataOf = new Map<string, Record<string, string>>();
  const withMetadata = (object: Record<string, unknown>, id: string) => ({
    ...object,
    metadata: metadataOf.get(id) ?? {},
  });

  /** An OAuth token issued here names its client; a direct access token names a token-derived account. */
  function authenticate(request: SandboxRequest): string | null {
    const token = bearer(request);
    if (!token) return null;
    const client = store.oauthTokens.get(token);
    if (client) return client;
    return /^APP_USR-[A-Za-z0-9-]+$/.test(token) && !looksInvalid(token) ? accountFromSecret('user_', token) : null;
  }

  type Run = (account: string, body: Record<string, unknown>) => Promise<Processed>;

  async function guarded(request: SandboxRequest, operation: Operation, run: Run, needsKey = false) {
    const key = request.method === 'GET' ? null : (header(request, 'x-idempotency-key') ?? null);
    const refuse = (processed: Processed) => {
      const status = (processed.reply as Reply).status;
      store.record({
        provider: 'provider_c',
        account: null,
        idempotency_key: key,
        http_status: status,
        ...processed.entry,
      });
      return processed.reply;
    };
    const account = authenticate(request);
    if (!account)
      return refuse(rejected(operation, 'unauthorized', error(401, 'invalid access token', 'unauthorized')));
    if (!request.body) return refuse(rejected(operation, 'malformed', error(400, 'invalid json', 'bad_request')));
    if (needsKey && !key)
      return refuse(
        rejected(
          operation,
          'missing_idempotency_key',
          error(400, "Header X-Idempotency-Key can't be null", 'bad_request'),
        ),
      );
    const body = request.body;
    // Card tokens are single use, so a retry necessarily carries a new one: the key is bound to everything else.
    const { token: _token, ...bound } = body;
    return idempotent(
      store,
      {
        provider: 'provider_c',
        account,
        key,
        request: { method: request.method, path: request.path, body: bound },
        conflict: () => error(409, 'The idempotency key has already been used with different parameters', 'conflict'),
      },
      () => run(account, body),
    );
  }

  function owned(account: string, id: string): Payment | null {
    const payment = store.payments.get(id);
    return payment && payment.account === account ? payment : null;
  }

  function issueToken(request: SandboxRequest): Reply {
    const body = request.body ?? {};
    const clientId = read.str(body.client_id);
    const clientSecret = read.str(body.client_secret);
    const valid =
      body.grant_type === 'client_credentials' &&
      clientId &&
      clientId.length >= 4 &&
      clientSecret &&
      clientSecret.length >= 8 &&
      !looksInvalid(clientId, clientSecret);
    const ledger = { provider: 'provider_c' as const, idempotency_key: null };
    if (!valid) {
      store.record({
        ...ledger,
        account: null,
        http_status: 401,
        ...draft('oauth_token', { outcome: 'rejected', reason: 'invalid_client' }),
      });
      return json(401, { error: 'invalid_client', message: 'invalid client_id or client_secret', status: 401 });
    }
    const token = `APP_USR-${numericId(16)}-${randomHex(16)}`;
    store.oauthTokens.set(token, clientId);
    store.record({ ...ledger, account: clientId, http_status: 200, ...draft('oauth_token', { outcome: 'approved' }) });
    return json(200, {
      access_token: token,
      token_type: 'Bearer',
      expires_in: 21600,
      scope: 'offline_access payments read write',
      user_id: numberFrom(clientId, 8),
      live_mode: false,
    });
  }

  const tokenize: Run = async (_account, body) => {
    const number = read.str(body.card_number);
    const expMonth = read.int(body.expiration_month);
    const expYear = read.int(body.expiration_year);
    if (!number || !/^\d{12,19}$/.test(number))
      return rejected('tokenize', 'invalid_number', badRequest('invalid parameters', 'E301', 'card_number invalid'));
    if (expMonth === null || expYear === null)
      return rejected(
        'tokenize',
        'invalid_expiry',
        badRequest('invalid parameters', '208', 'expiration_month invalid'),
      );
    const facts = cardFacts({ number, expMonth, expYear });
    const id = randomHex(16);
    store.cardTokens.set(id, { ...facts, expMonth, expYear });
    return {
      reply: json(201, {
        id,
        status: 'active',
        last_four_digits: facts.last4,
        first_six_digits: number.slice(0, 6),
        expiration_month: expMonth,
        expiration_year: expYear,
        date_due: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        live_mode: false,
      }),
      entry: draft('tokenize', { outcome: 'approved', card_last4: facts.last4, payment_method: 'card' }),
    };
  };

  const createPayment: Run = async (account, body) => {
    const currency = (read.str(body.currency_id) ?? 'BRL').toUpperCase();
    const amount = decimalToMinor(body.transaction_amount, currency);
    if (amount === null || amount < 1)
      return rejected(
        'authorize',
        'invalid_amount',
        badRequest('Invalid transaction_amount', '4037', 'Invalid transaction_amount'),
      );
    const methodId = read.str(body.payment_method_id) ?? '';
    let method: 'card' | 'pix' | 'wallet';
    let card: CardFacts | null = null;
    if (methodId === 'pix') method = 'pix';
    else if (methodId === 'account_money') method = 'wallet';
    else if (CARD_BRANDS.has(methodId)) {
      const tokenId = read.str(body.token) ?? '';
      const token = store.cardTokens.get(tokenId);
      if (!token)
        return rejected(
          'authorize',
          'invalid_token',
          badRequest('Invalid card_token_id', '2006', 'Card Token not found'),
        );
      store.cardTokens.delete(tokenId); // single use, like the real thing
      method = 'card';
      card = { scenario: token.scenario, brand: token.brand, last4: token.last4 };
    } else
      return rejected(
        'authorize',
        'unsupported_method',
        badRequest('Invalid payment_method_id', '4020', 'payment_method_id invalid'),
      );
    if (method === 'pix' && currency !== 'BRL')
      return rejected(
        'authorize',
        'invalid_currency',
        badRequest('Invalid currency_id', '4018', 'currency_id invalid'),
      );
    const id = numericId(11);
    metadataOf.set(id, metadataFrom(body.metadata));
    return authorizeFlow(ctx, {
      operation: 'authorize',
      serverError,
      input: {
        id,
        provider: 'provider_c',
        account,
        reference: read.str(body.external_reference),
        amount,
        currency,
        method,
        card,
        capture: read.bool(body.capture) !== false,
        // three_d_secure_mode `optional` or `mandatory` runs 3-D Secure (`not_supported`, the default, does not).
        // The buyer returns to callback_url, where Mercado Pago sends a redirected buyer back.
        threeDs: ['optional', 'mandatory'].includes(read.str(body.three_d_secure_mode) ?? '')
          ? { request: true, returnUrl: read.str(body.callback_url), offSession: false }
          : undefined,
      },
      render: (payment) => json(201, withMetadata(paymentObject(payment), payment.id)),
    });
  };

  /** PUT /v1/payments/:id: {capture: true} captures, {status: 'cancelled'} voids. */
  const update =
    (id: string): Run =>
    async (account, body) => {
      const operation = body.status === 'cancelled' ? 'void' : 'capture';
      const payment = owned(account, id);
      if (!payment) return rejected(operation, 'not_found', notFound());
      if (operation === 'capture' && body.capture !== true)
        return rejected('capture', 'invalid_request', error(400, 'Nothing to update', 'bad_request'));
      const amount =
        body.transaction_amount === undefined ? null : decimalToMinor(body.transaction_amount, payment.currency);
      const result = operation === 'void' ? voidPayment(payment) : capture(payment, amount);
      if (!result.ok)
        return rejected(
          operation,
          result.error,
          badRequest(`Invalid operation: ${result.error}`, '2063', 'Invalid payment status'),
          paymentFields(payment),
        );
      const fields = paymentFields(payment, operation === 'capture' ? payment.capturedAmount : null);
      return { reply: json(200, paymentObject(payment)), entry: draft(operation, { ...fields, outcome: 'approved' }) };
    };

  const refundPayment =
    (id: string): Run =>
    async (account, body) => {
      const payment = owned(account, id);
      if (!payment) return rejected('refund', 'not_found', notFound());
      const amount = body.amount === undefined ? null : decimalToMinor(body.amount, payment.currency);
      const refundId = numericId(12);
      metadataOf.set(refundId, metadataFrom(body.metadata));
      const result = refund(ctx, payment, {
        id: refundId,
        amount,
        reference: read.str(body.external_reference),
        asynchronous: false,
      });
      if (!result.ok)
        return rejected(
          'refund',
          result.error,
          badRequest(`Invalid refund: ${result.error}`, '2063', 'Invalid payment status'),
          paymentFields(payment),
        );
      const record = result.value;
      return {
        reply: json(201, withMetadata(refundObject(record), record.id)),
        entry: draft('refund', {
          ...paymentFields(payment, record.amount),
          reference: record.reference,
          provider_reference: record.id,
          outcome: record.state === 'failed' ? 'declined' : 'approved',
        }),
      };
    };

  const router = new Router()
    .on('POST', '/oauth/token', issueToken)
    .on('POST', '/v1/card_tokens', (request) => guarded(request, 'tokenize', tokenize))
    .on('POST', '/v1/payments', (request) => guarded(request, 'authorize', createPayment, true))
    // Mercado Pago's payment search: by external_reference, newest first (sort/criteria), paged by limit/offset.
    .on('GET', '/v1/payments/search', (request) =>
      guarded(request, 'lookup', async (account) => {
        const forced = lookupOverride(ctx, { provider: 'provider_c', account }, serverError);
        if (forced) return forced;
        const reference = request.query.get('external_reference');
        const limit = Math.min(Math.max(Number(request.query.get('limit') ?? 30) || 30, 1), 1000);
        const offset = Math.max(Number(request.query.get('offset') ?? 0) || 0, 0);
        // A lagging search (the lookup override `lag`) does not show the payments yet, as Mercado Pago's index.
        const lagging = lookupLags(ctx, { provider: 'provider_c', account });
        const matching = [...store.payments.values()]
          .filter(
            (payment) =>
              !lagging && payment.account === account && (reference === null || payment.reference === reference),
          )
          .sort((a, b) => (request.query.get('criteria') === 'asc' ? 1 : -1) * a.createdAt.localeCompare(b.createdAt));
        return {
          reply: json(200, {
            paging: { total: matching.length, limit, offset },
            results: matching
              .slice(offset, offset + limit)
              .map((payment) => withMetadata(paymentObject(payment), payment.id)),
          }),
          entry: draft('lookup', { outcome: 'approved', reference, reason: `found_${matching.length}` }),
        };
      }),
    )
    .on('GET', '/v1/payments/:id/refunds', (request) =>
      guarded(request, 'lookup', async (account) => {
        const payment = owned(account, request.params.id);
        if (!payment) return rejected('lookup', 'not_found', notFound());
        const refunds = [...store.refunds.values()].filter((record) => record.paymentId === payment.id);
        return {
          reply: json(
            200,
            refunds.map((record) => withMetadata(refundObject(record), record.id)),
          ),
          entry: draft('lookup', { ...paymentFields(payment), outcome: 'approved' }),
        };
      }),
    )
    .on('GET', '/v1/payments/:id', (request) =>
      guarded(request, 'lookup', async (account) => {
        const payment = owned(account, request.params.id);
        if (!payment) return rejected('lookup', 'not_found', notFound());
        return {
          reply: json(200, withMetadata(paymentObject(payment), payment.id)),
          entry: draft('lookup', { ...paymentFields(payment), outcome: 'approved' }),
        };
      }),
    )
    .on('PUT', '/v1/payments/:id', (request) => guarded(request, 'capture', update(request.params.id)))
    .on('POST', '/v1/payments/:id/refunds', (request) =>
      guarded(request, 'refund', refundPayment(request.params.id), true),
    )
    .on('GET', '/v1/users/me', (request) =>
      guarded(request, 'test_credentials', async (account) => ({
        reply: json(200, { id: numberFrom(account, 10), nickname: 'SANDBOX_SELLER', site_id: 'MLB', live_mode: false }),
        entry: draft('test_credentials', { outcome: 'approved' }),
      })),
    );

  return {
    slug: 'provider_c',
    router,
    accountOf(credentials) {
      if (typeof credentials.client_id === 'string') return credentials.client_id;
      return typeof credentials.access_token === 'string' ? accountFromSecret('user_', credentials.access_token) : null;
    },
    webhook: (event, payment, refundRecord, endpoint) => renderWebhook(event, payment, refundRecord, endpoint.secret),
  };
};
