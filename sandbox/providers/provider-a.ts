/**
 * provider_a speaks a Stripe-like API under /provider_a: form-encoded (or JSON) PaymentMethods, PaymentIntents and
 * SetupIntents, `Authorization: Bearer sk_test_…`, `Idempotency-Key`, card declines as HTTP 402 card_error with a
 * decline_code, webhooks signed Standard-Webhooks style (webhook-id / webhook-timestamp / webhook-signature, whsec_
 * secret). Like Stripe it keeps no readable record of idempotency keys: an earlier request is found through what
 * Stripe offers — PaymentIntent search on metadata, the lists of PaymentIntents, SetupIntents and refunds.
 */
import { createHmac } from 'node:crypto';
import { cardFacts, type CardFacts, type Scenario } from '../cards';
import { capture, refund, voidPayment, type SandboxContext } from '../engine';
import { bearer, HANG, header, json, read, Router, type Reply, type SandboxRequest } from '../http';
import { idempotent, type Processed } from '../idempotency';
import { randomChars, type Payment, type Refund } from '../store';
import {
  accountFromSecret,
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

const DECLINES: Record<string, { code: string; decline_code?: string; message: string }> = {
  do_not_honor: { code: 'card_declined', decline_code: 'do_not_honor', message: 'Your card was declined.' },
  insufficient_funds: {
    code: 'card_declined',
    decline_code: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  stolen_card: { code: 'card_declined', decline_code: 'stolen_card', message: 'Your card was declined.' },
  lost_card: { code: 'card_declined', decline_code: 'lost_card', message: 'Your card was declined.' },
  expired_card: { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.' },
  invalid_number: { code: 'incorrect_number', message: 'Your card number is incorrect.' },
  fraud: { code: 'card_declined', decline_code: 'fraudulent', message: 'Your card was declined.' },
  authentication_required: {
    code: 'card_declined',
    decline_code: 'authentication_required',
    message: 'Your card was declined. This transaction requires authentication.',
  },
  authentication_failed: {
    code: 'payment_intent_authentication_failure',
    message:
      'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
  },
};

const err = (status: number, error: Record<string, unknown>): Reply => json(status, { error });
const serverError = () => err(500, { type: 'api_error', message: 'An unknown error occurred' });
const missing = (id: string) =>
  err(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such payment_intent: '${id}'` });
const invalid = (param: string, message: string) =>
  err(400, { type: 'invalid_request_error', code: 'parameter_invalid', param, message });

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

  function paymentIntent(payment: Payment, expand: boolean): Record<string, unknown> {
    const status = {
      authorized: 'requires_capture',
      captured: 'succeeded',
      voided: 'canceled',
      declined: 'requires_payment_method',
      pending: 'processing',
      expired: 'canceled',
      verified: 'succeeded',
      requires_action: 'requires_action',
    }[payment.state];
    const three = payment.threeDs;
    const charge = {
      id: `ch_${payment.id.slice(3)}`,
      object: 'charge',
      payment_method_details: {
        type: payment.method === 'wallet' ? 'link' : 'card',
        card: payment.cardLast4
          ? {
              brand: payment.cardBrand,
              last4: payment.cardLast4,
              network_transaction_id: payment.networkTransactionId,
              three_d_secure: three?.result
                ? {
                    authentication_flow: three.flow,
                    result: three.result,
                    result_reason: null,
                    version: '2.2.0',
                    electronic_commerce_indicator: three.result === 'authenticated' ? '05' : '07',
                  }
                : null,
            }
          : null,
      },
    };
    const decline = payment.declineReason ? DECLINES[payment.declineReason] : null;
    return {
      id: payment.id,
      object: 'payment_intent',
      amount: payment.amount,
      amount_capturable: payment.state === 'authorized' ? payment.amount : 0,
      amount_received: payment.capturedAmount,
      currency: payment.currency.toLowerCase(),
      status,
      capture_method: payment.state === 'authorized' ? 'manual' : 'automatic',
      metadata: metadataFor(payment.id, payment.reference),
      latest_charge: expand ? charge : charge.id,
      created: Math.floor(Date.parse(payment.createdAt) / 1000),
      livemode: false,
      cancellation_reason: payment.state === 'expired' ? 'abandoned' : null,
      last_payment_error: decline ? { type: 'card_error', ...decline } : null,
      // Stripe's redirect-based 3-D Secure: the buyer goes to `url`, and comes back to the intent's return_url.
      next_action:
        payment.state === 'requires_action'
          ? {
              type: 'redirect_to_url',
              redirect_to_url: {
                url: three?.challengeUrl,
                return_url: three?.returnUrl,
              },
            }
          : null,
    };
  }

  /** Declines are 402 card_errors carrying the intent, as Stripe answers a failed confirmation. */
  function intentReply(payment: Payment, expand: boolean, kind: 'payment_intent' | 'setup_intent'): Reply {
    const body = kind === 'payment_intent' ? paymentIntent(payment, expand) : setupIntent(payment);
    if (payment.state !== 'declined') return json(200, body);
    return err(402, { type: 'card_error', ...DECLINES[payment.declineReason!], [kind]: body });
  }

  function setupIntent(payment: Payment): Record<string, unknown> {
    return {
      id: payment.id,
      object: 'setup_intent',
      status: payment.state === 'declined' ? 'requires_payment_method' : 'succeeded',
      usage: 'off_session',
      metadata: metadataFor(payment.id, payment.reference),
      livemode: false,
      latest_attempt: { network_transaction_id: payment.networkTransactionId },
    };
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

  function refundObject(record: Refund): Record<string, unknown> {
    return {
      id: record.id,
      object: 'refund',
      amount: record.amount,
      currency: record.currency.toLowerCase(),
      payment_intent: record.paymentId,
      status: record.state,
      failure_reason: record.state === 'failed' ? 'declined' : null,
      metadata: metadataFor(record.id, record.reference),
      created: Math.floor(Date.parse(record.createdAt) / 1000),
    };
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
    // Before /v1/payment_intents/:id, which would take "search" for an id.
    .on('GET', '/v1/payment_intents/search', (request) =>
      guarded(request, 'lookup', async (account) => {
        const forced = lookupOverride(ctx, { provider: 'provider_a', account }, serverError);
        if (forced) return forced;
        const clauses = metadataClauses(request.query.get('query') ?? '');
        if (!clauses) return rejected('lookup', 'invalid_query', invalid('query', 'Unsupported search query'));
        const hits = ownIntents(account, 'pi_').filter((payment) => {
          const metadata = metadataFor(payment.id, payment.reference);
          return clauses.every(([key, value]) => metadata[key] === value);
        });
        const limit = Math.min(Math.max(read.int(request.query.get('limit')) ?? 10, 1), 100);
        return {
          reply: json(200, {
            object: 'search_result',
            url: '/v1/payment_intents/search',
            has_more: hits.length > limit,
            next_page: null,
            data: hits.slice(0, limit).map((payment) => paymentIntent(payment, true)),
          }),
          entry: draft('lookup', { outcome: 'approved', reason: hits.length ? 'found' : 'not_found' }),
        };
      }),
    )
    .on('GET', '/v1/payment_intents', (request) => listed(request, paymentIntents))
    .on('GET', '/v1/setup_intents', (request) =>
      listed(request, (account) => ownIntents(account, 'seti_').map(setupIntent)),
    )
    .on('GET', '/v1/refunds', (request) =>
      listed(request, (account) => {
        const paymentIntentId = request.query.get('payment_intent');
        return [...store.refunds.values()]
          .filter((record) => record.provider === 'provider_a' && record.account === account)
          .filter((record) => !paymentIntentId || record.paymentId === paymentIntentId)
          .map(refundObject);
      }),
    )
    .on('GET', '/v1/payment_intents/:id', (request) =>
      guarded(request, 'lookup', async (account) => {
        const forced = lookupOverride(ctx, { provider: 'provider_a', account }, serverError);
        if (forced) return forced;
        const payment = store.payments.get(request.params.id);
        if (!payment || payment.account !== account) return rejected('lookup', 'not_found', missing(request.params.id));
        // Like Stripe, latest_charge is the charge's id unless the request expands it (expand[]=latest_charge).
        const expand = request.query.getAll('expand[]').includes('latest_charge');
        return {
          reply: json(200, paymentIntent(payment, expand)),
          entry: draft('lookup', { ...paymentFields(payment), outcome: 'approved' }),
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

  /** This account's PaymentIntents as the list shows them, oldest first, with those still being confirmed. */
  function paymentIntents(account: string): Array<Record<string, unknown>> {
    const done = ownIntents(account, 'pi_').map((payment) => paymentIntent(payment, true));
    const inFlight = [...confirming.entries()]
      .filter(([id, intent]) => intent.account === account && !store.payments.has(id))
      .map(([id, intent]) => ({
        id,
        object: 'payment_intent',
        amount: intent.amount,
        currency: intent.currency.toLowerCase(),
        status: 'requires_confirmation',
        metadata: metadataFor(id, null),
        created: intent.created,
        livemode: false,
      }));
    return [...done, ...inFlight];
  }

  /** This account's PaymentIntents (pi_) or SetupIntents (seti_). */
  function ownIntents(account: string, prefix: 'pi_' | 'seti_'): Payment[] {
    return [...store.payments.values()].filter(
      (payment) => payment.provider === 'provider_a' && payment.account === account && payment.id.startsWith(prefix),
    );
  }

  /**
   * A Stripe list: newest first, `created[gte]`, `limit` (1-100, default 10), `starting_after`, and `has_more`.
   * Strongly consistent (unlike search): what was created is listed at once.
   */
  function listed(request: SandboxRequest, objects: (account: string) => Array<Record<string, unknown>>) {
    return guarded(request, 'lookup', async (account) => {
      const forced = lookupOverride(ctx, { provider: 'provider_a', account }, serverError);
      if (forced) return forced;
      const since = read.int(request.query.get('created[gte]'));
      const limit = Math.min(Math.max(read.int(request.query.get('limit')) ?? 10, 1), 100);
      let all = objects(account)
        .filter((object) => since === null || (read.int(object.created) ?? 0) >= since)
        .reverse();
      const after = request.query.get('starting_after');
      if (after) all = all.slice(all.findIndex((object) => object.id === after) + 1);
      return {
        reply: json(200, {
          object: 'list',
          url: request.path,
          has_more: all.length > limit,
          data: all.slice(0, limit),
        }),
        entry: draft('lookup', { outcome: 'approved', reason: 'listed' }),
      };
    });
  }

  function stateError(payment: Payment, error: string): Reply {
    if (error === 'amount_too_large')
      return err(400, {
        type: 'invalid_request_error',
        code: 'amount_too_large',
        message: 'The amount exceeds what can be captured or refunded.',
      });
    return err(400, {
      type: 'invalid_request_error',
      code: 'payment_intent_unexpected_state',
      message: `This PaymentIntent's status is ${String(paymentIntent(payment, false).status)}.`,
    });
  }

  return {
    slug: 'provider_a',
    router,
    accountOf: (credentials) =>
      typeof credentials.secret_key === 'string' ? accountFromSecret('acct_', credentials.secret_key) : null,
    webhook(event, payment, refundRecord, endpoint) {
      let type = {
        'payment.succeeded': 'payment_intent.succeeded',
        'payment.failed': 'payment_intent.payment_failed',
        'payment.expired': 'payment_intent.canceled',
        'refund.succeeded': 'refund.updated',
        'refund.failed': 'refund.failed',
        'dispute.opened': 'charge.dispute.created',
        'dispute.updated': 'charge.dispute.updated',
        'dispute.closed': 'charge.dispute.closed',
      }[event.type];
      // Stripe announces a manual-capture intent that became capturable (requires_capture) with this event, not
      // payment_intent.succeeded, which it sends only once the money is captured.
      const capturable = event.type === 'payment.succeeded' && payment?.state === 'authorized';
      if (capturable) type = 'payment_intent.amount_capturable_updated';
      let object: Record<string, unknown>;
      if (refundRecord) object = refundObject(refundRecord);
      else if (event.type.startsWith('dispute.')) {
        const status =
          event.disputeStatus === 'opened'
            ? 'needs_response'
            : event.disputeStatus === 'updated'
              ? 'under_review'
              : event.disputeStatus;
        object = {
          id: `dp_${event.paymentId.slice(3)}`,
          object: 'dispute',
          amount: event.amount,
          currency: event.currency.toLowerCase(),
          payment_intent: event.paymentId,
          charge: `ch_${event.paymentId.slice(3)}`,
          reason: 'fraudulent',
          status,
          metadata: event.reference ? { reference: event.reference } : {},
        };
      } else object = payment ? paymentIntent(payment, false) : { id: event.paymentId };
      const body = JSON.stringify({
        id: event.id,
        object: 'event',
        api_version: '2024-06-20',
        created: Math.floor(Date.parse(event.createdAt) / 1000),
        livemode: false,
        type,
        data: { object },
      });
      return { headers: standardWebhookHeaders(event.id, endpoint.secret, body), body };
    },
  };
};

/**
 * The clauses of a Stripe search query made only of `metadata['key']:'value'` clauses joined by AND (what a lookup
 * sends); null for anything else, which the sandbox does not implement and answers 400.
 */
export function metadataClauses(query: string): Array<[string, string]> | null {
  const clause = /\s*metadata\['((?:[^'\\]|\\.)+)'\]:'((?:[^'\\]|\\.)*)'\s*/y;
  const and = /AND\s+/iy;
  const unescape = (text: string) => text.replace(/\\(.)/g, '$1');
  const clauses: Array<[string, string]> = [];
  let at = 0;
  while (at < query.length) {
    clause.lastIndex = at;
    const found = clause.exec(query);
    if (!found) return null;
    clauses.push([unescape(found[1]), unescape(found[2])]);
    and.lastIndex = clause.lastIndex;
    at = and.exec(query) ? and.lastIndex : clause.lastIndex;
  }
  return clauses.length ? clauses : null;
}

/** Standard Webhooks: HMAC-SHA256 over `${id}.${timestamp}.${body}` with the base64 key after whsec_. */
export function standardWebhookHeaders(
  id: string,
  secret: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
