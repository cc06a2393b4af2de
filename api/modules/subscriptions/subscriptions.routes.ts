/**
 * Subscriptions (public API, merchant key; Document 3 "Subscriptions (public API)"). Reads come from the read
 * model; each operation is an Update of the subscription's workflow (api/temporal/) and answers with the
 * subscription once the workflow has written the move.
 */
import { randomUUID } from 'node:crypto';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { updateSubscription, type SubscriptionOperationRequest } from '../../temporal';
import {
  presentOne,
  presentTransition,
  resolveNames,
  presentSubscription,
} from '../../../domain/subscriptions/subscriptions.presenter';
import type { SubscriptionOperation } from '../../../workflows/lib/subscription-rules';
import {
  CancelBody,
  ChangeInstrumentBody,
  ChangeOfferBody,
  EmptyBody,
  ListSubscriptionsQuery,
  MerchantParams,
  PauseBody,
  SubscriptionParams,
  SubscriptionSchemaOut,
  TransitionSchemaOut,
} from './subscriptions.schema';
import {
  assertAllowed,
  assertCustomerInstrument,
  getSubscription,
  listSubscriptions,
  listTransitions,
  targetOffer,
} from './subscriptions.service';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Subscription } from '../../../db/entities';

const tags = ['Subscriptions'];
const keys = ['merchant'] as const;
const path = '/merchants/:merchant_id/subscriptions';
/** Operations through the public API are the merchant's own calls: triggered_by admin, no dashboard actor. */
const caller = { triggeredBy: 'admin' as const, actor: null };

/** One POST …/:subscription_id/<action> route: checks, then the workflow Update, then the stored subscription. */
function operationRoute<B extends TSchema>(
  action: string,
  summary: string,
  body: B,
  operationOf: (body: Static<B>) => SubscriptionOperation,
  prepare: (em: EntityManager, sub: Subscription, body: Static<B>) => Promise<SubscriptionOperationRequest>,
) {
  return defineRoute({
    method: 'post',
    path: `${path}/:subscription_id/${action}`,
    summary,
    tags,
    auth: { keys, scopes: ['subscriptions:write'] },
    params: SubscriptionParams,
    body,
    responses: { 200: SubscriptionSchemaOut },
    envelope: 'wrapped',
    idempotency: 'optional',
    waitsOnWorkflow: true,
    async handler({ em, merchantId, params, body: input, deps, idempotencySeed }) {
      const sub = await getSubscription(em, merchantId, params.subscription_id);
      assertAllowed(sub, operationOf(input));
      const request = await prepare(em, sub, input);
      await updateSubscription(
        deps.temporal.client,
        sub.id,
        request,
        idempotencySeed ?? randomUUID(),
        deps.config.workflowWaitMs,
      );
      em.clear();
      return { status: 200, data: await presentOne(em, await getSubscription(em, merchantId, sub.id)) };
    },
  });
}

export const subscriptionRoutes = [
  defineRoute({
    method: 'get',
    path,
    summary: 'List subscriptions, newest first',
    tags,
    auth: { keys, scopes: ['subscriptions:read'] },
    params: MerchantParams,
    query: ListSubscriptionsQuery,
    responses: { 200: Type.Array(SubscriptionSchemaOut) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listSubscriptions(em, merchantId, query);
      const names = await resolveNames(em, items);
      return {
        status: 200,
        data: items.map((sub) => presentSubscription(sub, names.get(sub.id)!)),
        pagination: pagination(query, total),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${path}/:subscription_id`,
    summary: 'Get a subscription',
    tags,
    auth: { keys, scopes: ['subscriptions:read'] },
    params: SubscriptionParams,
    responses: { 200: SubscriptionSchemaOut },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: await presentOne(em, await getSubscription(em, merchantId, params.subscription_id)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${path}/:subscription_id/transitions`,
    summary: "A subscription's transitions, newest first",
    tags,
    auth: { keys, scopes: ['subscriptions:read'] },
    params: SubscriptionParams,
    responses: { 200: Type.Array(TransitionSchemaOut) },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      const sub = await getSubscription(em, merchantId, params.subscription_id);
      return { status: 200, data: (await listTransitions(em, sub)).map(presentTransition) };
    },
  }),
  operationRoute(
    'cancel',
    'Cancel now, or at the end of the current period (at_period_end true)',
    CancelBody,
    (body) => (body.at_period_end ? 'cancel_at_period_end' : 'cancel_now'),
    async (_em, _sub, body) => ({
      kind: 'cancel',
      args: { ...caller, atPeriodEnd: body.at_period_end, reason: body.reason ?? null },
    }),
  ),
  operationRoute(
    'reactivate',
    'Take back a scheduled cancellation',
    EmptyBody,
    () => 'reactivate',
    async () => ({
      kind: 'reactivate',
      args: caller,
    }),
  ),
  operationRoute(
    'pause',
    'Pause: renewals stop until resumed',
    PauseBody,
    () => 'pause',
    async (_em, _sub, body) => ({
      kind: 'pause',
      args: { ...caller, reason: body.reason ?? null },
    }),
  ),
  operationRoute(
    'resume',
    'Resume a paused subscription',
    EmptyBody,
    () => 'resume',
    async () => ({
      kind: 'resume',
      args: caller,
    }),
  ),
  operationRoute(
    'change-offer',
    'Move to another offer of the same product family (upgrade or downgrade)',
    ChangeOfferBody,
    () => 'change_offer',
    async (em, sub, body) => ({
      kind: 'change_offer',
      args: { ...caller, target: await targetOffer(em, sub, body.to_offer_id) },
    }),
  ),
  operationRoute(
    'change-payment-instrument',
    "Bill another of the customer's active instruments from now on",
    ChangeInstrumentBody,
    () => 'change_payment_instrument',
    async (em, sub, body) => {
      await assertCustomerInstrument(em, sub, body.payment_instrument_id);
      return {
        kind: 'change_payment_instrument',
        args: { ...caller, paymentInstrumentId: body.payment_instrument_id },
      };
    },
  ),
];
