/**
 * The sandbox's own control API under /_sandbox (no auth: it is a local test double). Tests and developers use it
 * to register webhook endpoints, read the ledger, settle/expire async payments, finish refunds, open disputes,
 * force outcomes and reset state. docs/sandbox.md documents every route.
 */
import { AMOUNT_SCENARIOS, TEST_CARDS, type Scenario } from './cards';
import {
  completeRefund,
  dispute,
  FAILING_REFUND_CENTS,
  finishPending,
  payLate,
  type DisputeStage,
  type SandboxContext,
} from './engine';
import { json, read, Router, type Reply, type SandboxRequest } from './http';
import { challengeRoutes } from './challenge';
import type { ProviderModule } from './providers/common';
import {
  randomChars,
  SANDBOX_PROVIDERS,
  type LedgerEntry,
  type Override,
  type Payment,
  type SandboxEvent,
  type SandboxProvider,
} from './store';
import { withoutQuery } from './webhooks';

const SCENARIOS: readonly Scenario[] = [
  'approve',
  'do_not_honor',
  'insufficient_funds',
  'stolen_card',
  'lost_card',
  'expired_card',
  'invalid_number',
  'fraud',
  // The issuer demands 3-D Secure of this charge, or the buyer failed it: a subscription's renewal can meet either.
  'authentication_required',
  'authentication_failed',
  'processing_error',
  'timeout',
  'slow',
  'approved_no_answer',
  'approved_server_error',
  'review',
];
/**
 * What a lookup by idempotency key can be forced to do: never answer, answer 5xx, or (checkout, provider_c) lag —
 * not show yet what was just processed.
 */
const LOOKUP_SCENARIOS: readonly Scenario[] = ['timeout', 'processing_error', 'lag'];
/**
 * What a capture, void or refund can be forced to do (provider_a, provider_d, checkout): answer late (the caller's wait runs out),
 * process it and answer 5xx (an unknown outcome a lookup finds under its key), or answer 5xx without processing
 * it (a lookup finds nothing).
 */
const OPERATION_SCENARIOS: readonly Scenario[] = ['slow', 'approved_server_error', 'processing_error'];
/** A refund can also be accepted as pending and decided later (provider_a: Stripe's `pending` refund). */
const REFUND_SCENARIOS: readonly Scenario[] = [...OPERATION_SCENARIOS, 'review'];
const OVERRIDE_OPERATIONS: readonly string[] = ['authorize', 'lookup', 'capture', 'void', 'refund'];
const STAGES: readonly DisputeStage[] = ['opened', 'updated', 'won', 'lost'];
const LEDGER_FILTERS = ['provider', 'account', 'idempotency_key', 'reference', 'operation', 'provider_reference'];
const EVENT_FILTERS = ['provider', 'account', 'payment_id', 'reference', 'type'];

const bad = (message: string): Reply => json(400, { error: 'invalid_request', message });
const missing = (what: string): Reply => json(404, { error: 'not_found', message: `${what} not found` });

export function controlRouter(ctx: SandboxContext, modules: Record<SandboxProvider, ProviderModule>): Router {
  const { store } = ctx;
  const challenge = challengeRoutes(ctx);

  /** {provider, account} or {provider, credentials} → the account, or an error reply. */
  function accountOf(body: Record<string, unknown>): { provider: SandboxProvider; account: string } | Reply {
    const provider = read.str(body.provider) as SandboxProvider | null;
    if (!provider || !SANDBOX_PROVIDERS.includes(provider))
      return bad(`provider must be one of ${SANDBOX_PROVIDERS.join(', ')}`);
    const account = read.str(body.account) ?? modules[provider].accountOf(read.obj(body.credentials));
    return account ? { provider, account } : bad('account or credentials is required');
  }

  function payment(request: SandboxRequest): Payment | null {
    return store.payments.get(request.params.id) ?? null;
  }

  const eventView = (event: SandboxEvent) => ({
    id: event.id,
    provider: event.provider,
    account: event.account,
    type: event.type,
    payment_id: event.paymentId,
    refund_id: event.refundId,
    dispute_status: event.disputeStatus,
    reference: event.reference,
    amount: event.amount,
    currency: event.currency,
    created_at: event.createdAt,
    endpoints: event.endpoints,
    deliveries: event.deliveries,
  });

  const accepted = (event: SandboxEvent) => json(202, { event: eventView(event) });

  /** Operator actions are ledgered too, so the ledger tells the whole story of a payment. */
  function ledgerAction(p: Payment, operation: LedgerEntry['operation'], reason: string): void {
    store.record({
      provider: p.provider,
      account: p.account,
      operation,
      idempotency_key: null,
      reference: p.reference,
      amount: p.amount,
      currency: p.currency,
      payment_method: p.method,
      card_last4: p.cardLast4,
      outcome: 'approved',
      reason,
      provider_reference: p.id,
      http_status: null,
    });
  }

  function pending(how: 'settle' | 'expire' | 'fail') {
    return (request: SandboxRequest) => {
      const found = payment(request);
      if (!found) return missing('payment');
      const given = how === 'settle' ? request.body?.amount : undefined;
      const paidAmount = given === undefined ? null : read.int(given);
      if (given !== undefined && !(paidAmount !== null && paidAmount > 0))
        return json(400, { error: 'invalid_request', message: 'amount must be a positive integer (minor units)' });
      const result = finishPending(ctx, found, how, paidAmount ?? undefined);
      if (!result.ok) return json(409, { error: 'invalid_state', message: `payment is ${found.state}, not pending` });
      ledgerAction(found, how, how);
      return accepted(result.value);
    };
  }

  function refundResult(succeeded: boolean) {
    return (request: SandboxRequest) => {
      const record = store.refunds.get(request.params.id);
      if (!record) return missing('refund');
      const event = completeRefund(ctx, record, succeeded);
      store.record({
        provider: record.provider,
        account: record.account,
        operation: 'refund_result',
        idempotency_key: null,
        reference: record.reference,
        amount: record.amount,
        currency: record.currency,
        payment_method: null,
        card_last4: null,
        outcome: succeeded ? 'approved' : 'declined',
        reason: null,
        provider_reference: record.id,
        http_status: null,
      });
      return accepted(event);
    };
  }

  return new Router()
    .on('GET', '/health', () => json(200, { status: 'ok' }))
    .on('GET', '/test-cards', () =>
      json(200, {
        cards: TEST_CARDS,
        amount_scenarios: AMOUNT_SCENARIOS,
        failing_refund_cents: FAILING_REFUND_CENTS,
        invalid_credentials: 'any credential value containing "invalid" is rejected with the provider\'s auth error',
      }),
    )
    .on('POST', '/accounts/resolve', (request) => {
      const resolved = accountOf(request.body ?? {});
      return 'status' in resolved ? resolved : json(200, resolved);
    })
    .on('POST', '/webhook-endpoints', (request) => {
      const body = request.body ?? {};
      const resolved = accountOf(body);
      if ('status' in resolved) return resolved;
      const url = read.str(body.url);
      const secret = read.str(body.secret);
      if (!url || !/^https?:\/\//.test(url)) return bad('url must be an http(s) URL');
      if (!secret) return bad('secret is required');
      const endpoint = { id: `we_${randomChars(20)}`, ...resolved, url, secret, createdAt: new Date().toISOString() };
      store.endpoints.push(endpoint);
      return json(201, {
        id: endpoint.id,
        provider: endpoint.provider,
        account: endpoint.account,
        url: withoutQuery(url),
      });
    })
    .on('GET', '/webhook-endpoints', (request) =>
      json(200, {
        data: store.endpoints
          .filter((e) => matches(e, request.query, ['provider', 'account']))
          .map((e) => ({
            id: e.id,
            provider: e.provider,
            account: e.account,
            url: withoutQuery(e.url),
            created_at: e.createdAt,
          })),
      }),
    )
    .on('DELETE', '/webhook-endpoints/:id', (request) => {
      const index = store.endpoints.findIndex((e) => e.id === request.params.id);
      if (index < 0) return missing('webhook endpoint');
      store.endpoints.splice(index, 1);
      return { status: 204 };
    })
    .on('GET', '/ledger', (request) =>
      json(200, {
        data: store.ledger.filter((entry) => matches(entry, request.query, LEDGER_FILTERS)),
      }),
    )
    .on('GET', '/events', (request) =>
      json(200, {
        data: store.events.map(eventView).filter((event) => matches(event, request.query, EVENT_FILTERS)),
      }),
    )
    .on('GET', '/payments/:id', (request) => {
      const found = payment(request);
      return found ? json(200, found) : missing('payment');
    })
    .on('GET', '/challenge/:id', (request) => challenge.show(request))
    .on('POST', '/challenge/:id', (request) => challenge.submit(request))
    .on('GET', '/instructions/:id', (request) => {
      const found = payment(request);
      if (!found?.instructions) return missing('payment instructions');
      return json(200, { ...found.instructions, amount: found.amount, currency: found.currency, state: found.state });
    })
    .on('POST', '/payments/:id/settle', pending('settle'))
    .on('POST', '/payments/:id/expire', pending('expire'))
    .on('POST', '/payments/:id/fail', pending('fail'))
    .on('POST', '/payments/:id/pay-late', (request) => {
      const found = payment(request);
      if (!found) return missing('payment');
      const result = payLate(ctx, found);
      if (!result.ok) return json(409, { error: 'invalid_state', message: `payment is ${found.state}, not expired` });
      ledgerAction(found, 'settle', 'paid_late');
      return accepted(result.value);
    })
    .on('POST', '/payments/:id/dispute', (request) => {
      const found = payment(request);
      if (!found) return missing('payment');
      if (modules[found.provider].supportsDisputes === false) {
        return json(422, { error: 'unsupported', message: `${found.provider} sends no dispute notifications` });
      }
      const stage = (read.str(request.body?.stage) ?? 'opened') as DisputeStage;
      if (!STAGES.includes(stage)) return bad(`stage must be one of ${STAGES.join(', ')}`);
      const result = dispute(ctx, found, stage);
      if (!result.ok) return json(409, { error: 'invalid_state', message: `payment is ${found.state}, not captured` });
      ledgerAction(found, 'dispute', stage);
      return accepted(result.value);
    })
    .on('POST', '/batches/settle', (request) => {
      const resolved = accountOf(request.body ?? {});
      if ('status' in resolved) return resolved;
      const settle = modules[resolved.provider].settleBatch;
      if (!settle) return json(422, { error: 'unsupported', message: `${resolved.provider} settles no batches` });
      return json(200, settle(resolved.account));
    })
    .on('POST', '/refunds/:id/succeed', refundResult(true))
    .on('POST', '/refunds/:id/fail', refundResult(false))
    .on('POST', '/overrides', (request) => {
      const body = request.body ?? {};
      const resolved =
        body.account === undefined && body.credentials === undefined
          ? { provider: read.str(body.provider) as SandboxProvider, account: null }
          : accountOf(body);
      if ('status' in resolved) return resolved;
      if (!SANDBOX_PROVIDERS.includes(resolved.provider))
        return bad(`provider must be one of ${SANDBOX_PROVIDERS.join(', ')}`);
      const operation = read.str(body.operation) ?? 'authorize';
      if (!OVERRIDE_OPERATIONS.includes(operation))
        return bad(`operation must be one of ${OVERRIDE_OPERATIONS.join(', ')}`);
      const allowed =
        operation === 'lookup'
          ? LOOKUP_SCENARIOS
          : operation === 'authorize'
            ? SCENARIOS
            : operation === 'refund'
              ? REFUND_SCENARIOS
              : OPERATION_SCENARIOS;
      const scenario = read.str(body.scenario) as Scenario;
      if (!allowed.includes(scenario)) return bad(`scenario must be one of ${allowed.join(', ')}`);
      const times = body.times === undefined ? null : read.int(body.times);
      if (times !== null && times < 1) return bad('times must be a positive integer');
      const override = {
        id: `ovr_${randomChars(20)}`,
        provider: resolved.provider,
        account: resolved.account,
        reference: read.str(body.reference),
        scenario,
        remaining: times,
        operation: operation as Override['operation'],
      };
      store.overrides.push(override);
      return json(201, override);
    })
    .on('DELETE', '/overrides/:id', (request) => {
      const index = store.overrides.findIndex((o) => o.id === request.params.id);
      if (index < 0) return missing('override');
      store.overrides.splice(index, 1);
      return { status: 204 };
    })
    .on('POST', '/reset', (request) => {
      const body = request.body ?? {};
      const filter = {
        provider: read.str(body.provider) ?? undefined,
        account: read.str(body.account) ?? undefined,
        reference: read.str(body.reference) ?? undefined,
      };
      return json(200, { removed_ledger_entries: store.reset(filter) });
    });
}

function matches(item: object, query: URLSearchParams, fields: string[]): boolean {
  const record = item as Record<string, unknown>;
  return fields.every((field) => {
    const wanted = query.get(field);
    return wanted === null || String(record[field]) === wanted;
  });
}
