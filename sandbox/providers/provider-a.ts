/**
 * provider_a speaks a Stripe-like API under /provider_a: form-encoded (or JSON) PaymentIntents and SetupIntents,
 * `Authorization: Bearer sk_test_…`, `Idempotency-Key`, card declines as HTTP 402 card_error with a decline_code,
 * webhooks signed Standard-Webhooks style (webhook-id / webhook-timestamp / webhook-signature, whsec_ secret).
 */
import { createHmac } from 'node:crypto';
import { cardFacts } from '../cards';
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
  lookupByKey,
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
};

const err = (status: number, error: Record<string, unknown>): Reply => json(status, { error });
const serverError = () => err(500, { type: 'api_error', message: 'An unknown error occurred' });
const missing = (id: string) =>
  err(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such payment_intent: '${id}'` });
const invalid = (param: string, message: string) =>
  err(400, { type: 'invalid_request_error', code: 'parameter_invalid', param, message });

export const providerA: ProviderFactory = (ctx: SandboxContext) => {
  const { store } = ctx;

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
    run: (account: string) => Promise<Processed>,
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
        const processed = await run(auth.account);
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
    }[payment.state];
    const charge = {
      id: `ch_${payment.id.slice(3)}`,
      object: 'charge',
      payment_method_details: {
        type: payment.method === 'wallet' ? 'link' : 'card',
        card: payment.cardLast4
          ? { brand: payment.cardBrand, last4: payment.cardLast4, network_transaction_id: payment.networkTransactionId }
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
      metadata: payment.reference ? { reference: payment.reference } : {},
      latest_charge: expand ? charge : charge.id,
      created: Math.floor(Date.parse(payment.createdAt) / 1000),
      livemode: false,
      cancellation_reason: payment.state === 'expired' ? 'abandoned' : null,
      last_payment_error: decline ? { type: 'card_error', ...decline } : null,
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
      metadata: payment.reference ? { reference: payment.reference } : {},
      livemode: false,
      latest_attempt: { network_transaction_id: payment.networkTransactionId },
    };
  }

  /** payment_method_data → card facts (card) or a wallet (link); the number is reduced to facts here. */
  function method(
    body: Record<string, unknown>,
  ): { method: 'card' | 'wallet'; card: ReturnType<typeof cardFacts> | null } | string {
    const data = read.obj(body.payment_method_data);
    if (data.type === 'link') return { method: 'wallet', card: null };
    if (data.type !== 'card') return 'payment_method_data[type]';
    const card = read.obj(data.card);
    const number = read.str(card.number);
    const expMonth = read.int(card.exp_month);
    const expYear = read.int(card.exp_year);
    if (!number || expMonth === null || expYear === null) return 'payment_method_data[card]';
    return { method: 'card', card: cardFacts({ number, expMonth, expYear }) };
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
      metadata: record.reference ? { reference: record.reference } : {},
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
        const chosen = method(body);
        if (typeof chosen === 'string')
          return rejected('authorize', 'invalid_payment_method', invalid(chosen, 'Invalid payment method data'));
        const reference = read.str(read.obj(body.metadata).reference);
        const expand = Array.isArray(body.expand) && body.expand.includes('latest_charge');
        const card = read.obj(read.obj(body.payment_method_options).card);
        const mitReference = read.str(read.obj(card.mit_exemption).network_transaction_id);
        const processed = await authorizeFlow(ctx, {
          operation: 'authorize',
          serverError,
          input: {
            id: `pi_${randomChars(24)}`,
            provider: 'provider_a',
            account,
            reference,
            amount,
            currency: currency.toUpperCase(),
            method: chosen.method,
            card: chosen.card,
            capture: body.capture_method !== 'manual',
          },
          render: (payment) => intentReply(payment, expand, 'payment_intent'),
        });
        return { ...processed, entry: { ...processed.entry, mit_reference: mitReference } };
      }),
    )
    .on('POST', '/v1/setup_intents', (request) =>
      guarded(request, 'verify', async (account) => {
        const chosen = method(request.body ?? {});
        if (typeof chosen === 'string' || !chosen.card)
          return rejected('verify', 'invalid_payment_method', invalid('payment_method_data', 'A card is required'));
        return authorizeFlow(ctx, {
          operation: 'verify',
          serverError,
          input: {
            id: `seti_${randomChars(24)}`,
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
    .on('GET', '/v1/idempotency_keys/:key', (request) =>
      guarded(request, 'lookup', async (account) =>
        lookupByKey(ctx, { provider: 'provider_a', account, key: request.params.key }, serverError),
      ),
    )
    .on('GET', '/v1/payment_intents/:id', (request) =>
      guarded(request, 'lookup', async (account) => {
        const payment = store.payments.get(request.params.id);
        if (!payment || payment.account !== account) return rejected('lookup', 'not_found', missing(request.params.id));
        return {
          reply: json(200, paymentIntent(payment, true)),
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
      guarded(request, 'refund', async (account) => {
        const body = request.body ?? {};
        const id = read.str(body.payment_intent) ?? '';
        const payment = store.payments.get(id);
        if (!payment || payment.account !== account) return rejected('refund', 'not_found', missing(id));
        const result = refund(ctx, payment, {
          id: `re_${randomChars(24)}`,
          amount: read.int(body.amount),
          reference: read.str(read.obj(body.metadata).reference),
          asynchronous: false,
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
            outcome: record.state === 'failed' ? 'declined' : 'approved',
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
      const type = {
        'payment.succeeded': 'payment_intent.succeeded',
        'payment.failed': 'payment_intent.payment_failed',
        'payment.expired': 'payment_intent.canceled',
        'refund.succeeded': 'refund.updated',
        'refund.failed': 'refund.failed',
        'dispute.opened': 'charge.dispute.created',
        'dispute.updated': 'charge.dispute.updated',
        'dispute.closed': 'charge.dispute.closed',
      }[event.type];
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
