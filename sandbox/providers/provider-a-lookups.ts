/**
 * provider_a's reads, the ways Stripe offers to find an earlier request (it keeps no readable record of idempotency
 * keys): PaymentIntent search on metadata, the lists of PaymentIntents, SetupIntents and refunds, and one
 * PaymentIntent by id.
 */
import type { Scenario } from '../cards';
import type { SandboxContext } from '../engine';
import { json, read, type HandlerResult, type Router, type SandboxRequest } from '../http';
import type { Processed } from '../idempotency';
import type { Payment } from '../store';
import { draft, lookupOverride, paymentFields, rejected } from './common';
import { invalid, missing, serverError, type MetadataOf, type StripeObjects } from './provider-a-shapes';

export interface LookupDeps {
  ctx: SandboxContext;
  /** Authenticates, then runs the read (provider-a.ts). */
  guarded(
    request: SandboxRequest,
    operation: Parameters<typeof rejected>[0],
    run: (account: string, forced: Scenario | null) => Promise<Processed>,
  ): Promise<HandlerResult>;
  objects: StripeObjects;
  metadataFor: MetadataOf;
  /** PaymentIntents being confirmed right now, which the list shows as requires_confirmation. */
  confirming: ReadonlyMap<string, { account: string; amount: number; currency: string; created: number }>;
}

/** Adds the read routes to provider_a's router. */
export function lookupRoutes(router: Router, { ctx, guarded, objects, metadataFor, confirming }: LookupDeps): Router {
  const { store } = ctx;
  const { paymentIntent, setupIntent, refundObject } = objects;

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

  return (
    router
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
          if (!payment || payment.account !== account)
            return rejected('lookup', 'not_found', missing(request.params.id));
          // Like Stripe, latest_charge is the charge's id unless the request expands it (expand[]=latest_charge).
          const expand = request.query.getAll('expand[]').includes('latest_charge');
          return {
            reply: json(200, paymentIntent(payment, expand)),
            entry: draft('lookup', { ...paymentFields(payment), outcome: 'approved' }),
          };
        }),
      )
  );
}

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
