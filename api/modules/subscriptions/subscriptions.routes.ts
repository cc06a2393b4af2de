/**
 * Subscriptions (public API, merchant key; Document 3 "Subscriptions (public API)"). Reads come from the read
 * model; each operation is an Update of the subscription's workflow (api/temporal/) and answers with the
 * subscription once the workflow has written the move.
 */
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import {
  presentOne,
  presentTransition,
  resolveNames,
  presentSubscription,
} from '../../../domain/subscriptions/subscriptions.presenter';
import {
  ListSubscriptionsQuery,
  MerchantParams,
  SubscriptionParams,
  SubscriptionSchemaOut,
  TransitionSchemaOut,
  ListTransitionsQuery,
} from './subscriptions.schema';
import { getSubscription, listSubscriptions, listTransitions } from './subscriptions.service';
import {
  apiKeyCaller,
  runSubscriptionOperation,
  SUBSCRIPTION_OPERATIONS,
  type OperationDefinition,
} from './subscription-operations.service';

const tags = ['Subscriptions'];
const keys = ['merchant'] as const;
const path = '/merchants/:merchant_id/subscriptions';

/** One POST …/:subscription_id/<action> route: the shared operation, then the stored subscription. */
function operationRoute(definition: OperationDefinition) {
  return defineRoute({
    method: 'post',
    path: `${path}/:subscription_id/${definition.action}`,
    summary: definition.summary,
    description: definition.description,
    example: definition.example,
    tags,
    auth: { keys, scopes: ['subscriptions:write'] },
    params: SubscriptionParams,
    body: definition.body,
    responses: { 200: SubscriptionSchemaOut },
    envelope: 'wrapped',
    // 422 business_rule_error: the subscription's state does not allow this move.
    errors: [422],
    idempotency: 'optional',
    waitsOnWorkflow: true,
    async handler({ em, merchantId, params, body, deps, idempotencySeed, auth }) {
      const sub = await runSubscriptionOperation(
        em,
        deps,
        { merchantId, subscriptionId: params.subscription_id },
        definition,
        body,
        await apiKeyCaller(em, auth.keyId),
        idempotencySeed,
      );
      return { status: 200, data: await presentOne(em, sub) };
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
    query: ListTransitionsQuery,
    responses: { 200: Type.Array(TransitionSchemaOut) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, params, query }) {
      const sub = await getSubscription(em, merchantId, params.subscription_id);
      const { items, total } = await listTransitions(em, sub, query);
      return { status: 200, data: items.map(presentTransition), pagination: pagination(query, total) };
    },
  }),
  ...SUBSCRIPTION_OPERATIONS.map(operationRoute),
];
