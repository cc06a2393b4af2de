/**
 * The merchant Dashboard's routing page: the same profile, node and simulate handlers as the
 * API-key routes, served at /merchant/… to a signed-in person (x-merchant-id; a change needs an owner or admin and
 * is recorded with that person as the actor, routing-profiles.service.ts routingContext). Also what the hosted
 * checkout offers, read from routing (routing-reach.service.ts), for the API and the Dashboard's connectors page.
 */
import { Type } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import { defineRoute, type AnyRoute } from '../../http/define-route';
import type { DashboardRequirement } from '../../http/dashboard-auth';
import { Currency, Nullable, StrictObject, StringEnum } from '../../http/schema';
import { withoutMerchantId } from '../merchant-dashboard/merchant-dashboard.service';
import { MerchantParams } from './routing-profiles.schema';
import { routingRead } from './routing-profiles.routes';
import { checkoutReach } from './routing-reach.service';
import { CHECKOUT_METHODS } from './routing-reach.rules';

const merchantDashboard: DashboardRequirement = { dashboard: ['merchant'], tenant: 'merchant' };
const API_BASE = '/merchants/:merchant_id';

/** The API-key route at /merchants/:merchant_id/…, for merchant Dashboard sessions at /merchant/…. */
export function dashboardTwin(route: AnyRoute): AnyRoute {
  if (!route.path.startsWith(API_BASE)) throw new Error(`${route.path} is not a merchant route`);
  return {
    ...route,
    path: `/merchant${route.path.slice(API_BASE.length)}`,
    tags: ['Merchant Dashboard: routing'],
    auth: merchantDashboard,
    params: withoutMerchantId(route.params as TSchema | undefined),
    query: withoutMerchantId(route.query as TSchema | undefined),
    body: withoutMerchantId(route.body as TSchema | undefined),
    links: undefined,
  };
}

const CheckoutMethodsQuery = StrictObject({
  currency: Type.Optional(Currency),
});

const CheckoutMethodsObject = StrictObject({
  currency: Nullable(Type.String({ description: 'The currency asked about; null: any currency' })),
  methods: Type.Array(
    StrictObject({
      payment_method: StringEnum(CHECKOUT_METHODS),
      offered: Type.Boolean({ description: 'The hosted checkout lists this method' }),
      connectors: Type.Array(StrictObject({ id: Type.String(), name: Type.String(), provider_slug: Type.String() }), {
        description: 'The connectors routing can send the method to, in plan order',
      }),
      card_brands: Type.Array(Type.String(), { description: 'credit_card only: the brands those connectors take' }),
    }),
  ),
});

const checkoutMethodsRoute = defineRoute({
  method: 'get',
  path: '/merchants/:merchant_id/checkout-methods',
  summary: 'What the hosted checkout offers: each payment method with the connectors routing can send it to',
  description:
    "The hosted checkout lists a payment method only when the merchant's active routing profile for it (or the * catch-all) names an active connector that takes the method (and the checkout's currency), and card brands only those such connectors take. Adding a connector changes nothing here until routing uses it.",
  tags: ['Routing profiles'],
  auth: routingRead,
  params: MerchantParams,
  query: CheckoutMethodsQuery,
  responses: { 200: CheckoutMethodsObject },
  envelope: 'bare',
  async handler({ em, merchantId, query }) {
    const reach = await checkoutReach(em, merchantId, query.currency ?? null);
    return {
      status: 200,
      data: {
        currency: reach.currency,
        methods: CHECKOUT_METHODS.map((method) => {
          const connectors = reach.methods[method];
          const brands = method === 'credit_card' ? reach.cardBrands : [];
          return {
            payment_method: method,
            offered: connectors.length > 0 && (method !== 'credit_card' || brands.length > 0),
            connectors: connectors.map((c) => ({ id: c.id, name: c.name, provider_slug: c.providerSlug })),
            card_brands: brands,
          };
        }),
      },
    };
  },
});

export { checkoutMethodsRoute };

/** Twins of the profile, node and simulate routes (not the decline table, which the Dashboard does not edit yet). */
export const routingDashboardRoutes = (routes: readonly AnyRoute[]): AnyRoute[] =>
  routes.filter((route) => route.path.startsWith(`${API_BASE}/routing-profiles`)).map(dashboardTwin);
