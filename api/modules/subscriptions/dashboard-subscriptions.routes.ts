/**
 * Document 3 "Subscriptions (Dashboard)": a signed-in merchant user (x-merchant-id, active membership) reads the
 * merchant's subscriptions and operates on them. Same reads and the same operation table as the public API
 * (subscription-operations.service.ts); the transitions record the user as `actor`. Bare responses, flat meta.
 */
import { Type } from '@sinclair/typebox';
import type { DashboardRequirement } from '../../http/dashboard-auth';
import { defineRoute } from '../../http/define-route';
import { withNames } from '../merchant-dashboard/merchant-dashboard-names.service';
import { pagination } from '../../http/pagination';
import {
  presentDashboardOne,
  presentDashboardSubscription,
  presentTransition,
  resolveNames,
} from '../../../domain/subscriptions/subscriptions.presenter';
import {
  DashboardSubscriptionParams,
  DashboardSubscriptionSchemaOut,
  ListSubscriptionsQuery,
  TransitionSchemaOut,
  ListTransitionsQuery,
} from './subscriptions.schema';
import { getSubscription, listSubscriptions, listTransitions } from './subscriptions.service';
import {
  dashboardCaller,
  runSubscriptionOperation,
  SUBSCRIPTION_OPERATIONS,
  type OperationDefinition,
} from './subscription-operations.service';

const tags = ['Merchant Dashboard: subscriptions'];
const auth: DashboardRequirement = { dashboard: ['merchant'], tenant: 'merchant' };
const path = '/merchant/subscriptions';

function operationRoute(definition: OperationDefinition) {
  return defineRoute({
    method: 'post',
    path: `${path}/:id/${definition.action}`,
    summary: definition.summary,
    description: definition.description,
    example: definition.example,
    tags,
    auth,
    params: DashboardSubscriptionParams,
    body: definition.body,
    responses: { 200: DashboardSubscriptionSchemaOut },
    envelope: 'bare',
    // 422 business_rule_error: the subscription's state does not allow this move.
    errors: [422],
    waitsOnWorkflow: true,
    async handler({ em, merchantId, session, params, body, deps }) {
      const caller = await dashboardCaller(em, session);
      const sub = await runSubscriptionOperation(
        em,
        deps,
        { merchantId, subscriptionId: params.id },
        definition,
        body,
        caller,
      );
      return { status: 200, data: await presentDashboardOne(em, sub) };
    },
  });
}

export const dashboardSubscriptionRoutes = [
  // customer_email: the Dashboard's search by e-mail (merchant-dashboard-names.service.ts).
  withNames(
    defineRoute({
      method: 'get',
      path,
      summary: "List the merchant's subscriptions, newest first",
      tags,
      auth,
      query: ListSubscriptionsQuery,
      responses: { 200: Type.Array(DashboardSubscriptionSchemaOut) },
      envelope: 'bare',
      pagination: 'flat',
      async handler({ em, merchantId, query }) {
        const { items, total } = await listSubscriptions(em, merchantId, query);
        const names = await resolveNames(em, items);
        return {
          status: 200,
          data: items.map((sub) => presentDashboardSubscription(sub, names.get(sub.id)!)),
          pagination: pagination(query, total),
        };
      },
    }),
    { emailFilter: 'customer_id' },
  ),
  defineRoute({
    method: 'get',
    path: `${path}/:id`,
    summary: 'Get a subscription',
    tags,
    auth,
    params: DashboardSubscriptionParams,
    responses: { 200: DashboardSubscriptionSchemaOut },
    envelope: 'bare',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: await presentDashboardOne(em, await getSubscription(em, merchantId, params.id)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${path}/:id/transitions`,
    summary: "A subscription's transitions, newest first (with the Dashboard user who made each admin move)",
    tags,
    auth,
    params: DashboardSubscriptionParams,
    query: ListTransitionsQuery,
    responses: { 200: Type.Array(TransitionSchemaOut) },
    envelope: 'bare',
    pagination: 'flat',
    async handler({ em, merchantId, params, query }) {
      const sub = await getSubscription(em, merchantId, params.id);
      const { items, total } = await listTransitions(em, sub, query);
      return { status: 200, data: items.map(presentTransition), pagination: pagination(query, total) };
    },
  }),
  ...SUBSCRIPTION_OPERATIONS.map(operationRoute),
];
