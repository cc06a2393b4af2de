/**
 * The merchant Dashboard's reads and payment operations (beyond the spec, which gives the merchant Dashboard only
 * subscriptions: see docs/api-decisions.md). A signed-in merchant user (x-merchant-id) reaches the same handlers
 * as the API-key routes at /merchant/…, with bare responses and flat list meta like every Dashboard endpoint.
 * Only handlers that read nothing of the API key are served this way; the writes that record an actor
 * (connector create, webhook redeliver) are declared in merchant-dashboard-writes.routes.ts. Payment pages answer
 * names next to ids and filter by the customer's e-mail (merchant-dashboard-names.service.ts).
 */
import type { TSchema } from '@sinclair/typebox';
import type { AnyRoute, HttpMethod } from '../../http/define-route';
import type { DashboardRequirement } from '../../http/dashboard-auth';
import { transactionRoutes } from '../transactions/transactions.routes';
import { orderRoutes } from '../orders/orders.routes';
import { webhookRoutes } from '../webhooks/webhook-deliveries.routes';
import { connectorRoutes } from '../connectors/connectors.routes';
import { paymentProviderRoutes } from '../payment-providers/payment-providers.routes';
import { paymentInstrumentRoutes } from '../payment-instruments/payment-instruments.routes';
import { productRoutes } from '../products/products.routes';
import { offerRoutes } from '../offers/offers.routes';
import { offerTransitionRoutes } from '../offer-transitions/offer-transitions.routes';
import { offerPriceRoutes } from '../offer-prices/offer-prices.routes';
import { customerRoutes } from '../customers/customers.routes';
import { checkoutSessionRoutes } from '../checkout-sessions/checkout-sessions.routes';
import { testClockRoutes } from '../test-clocks/test-clocks.routes';
import { routeAt, withoutMerchantId } from './merchant-dashboard.service';
import { withNames } from './merchant-dashboard-names.service';
import { merchantDashboardOverviewRoute } from './merchant-dashboard-overview.routes';
import { merchantDashboardActivityRoute } from './merchant-dashboard-activity.routes';
import { merchantDashboardCustomersRoute } from './merchant-dashboard-customers.routes';

export const merchantDashboard: DashboardRequirement = { dashboard: ['merchant'], tenant: 'merchant' };

/** The API-key route at `method from`, served to merchant Dashboard sessions at `to`. */
function servedToDashboard(routes: readonly AnyRoute[], method: HttpMethod, from: string, to: string, tag: string) {
  const route = routeAt(routes, method, from);
  const served: AnyRoute = {
    ...route,
    path: to,
    tags: [`Merchant Dashboard: ${tag}`],
    auth: merchantDashboard,
    params: withoutMerchantId(route.params as TSchema | undefined),
    query: withoutMerchantId(route.query as TSchema | undefined),
    body: withoutMerchantId(route.body as TSchema | undefined),
    envelope: 'bare',
    pagination: route.pagination ? 'flat' : undefined,
    // Idempotency-Key as on the API route, scoped to the person on this merchant (route-runner).
    idempotency: route.idempotency,
  };
  return served;
}

const payments = (method: HttpMethod, path: string) =>
  servedToDashboard([...transactionRoutes, ...orderRoutes], method, path, `/merchant${path}`, 'payments');
const webhooks = (from: string, to: string) => servedToDashboard(webhookRoutes, 'get', from, to, 'webhooks');
const connectors = (routes: readonly AnyRoute[], from: string, to: string) =>
  servedToDashboard(routes, 'get', from, to, 'connectors');
const catalog = (routes: readonly AnyRoute[], from: string, method: HttpMethod = 'get') =>
  servedToDashboard(routes, method, from, `/merchant${from}`, 'catalog and instruments');

export const merchantDashboardRoutes: AnyRoute[] = [
  merchantDashboardOverviewRoute,
  merchantDashboardActivityRoute,
  withNames(payments('get', '/transactions'), { customers: true, emailFilter: 'customer_reference' }),
  withNames(payments('get', '/transactions/:transactionId'), { customers: true }),
  withNames(payments('get', '/transactions/:transactionId/attempts'), { connectors: true }),
  payments('post', '/transactions/:transactionId/capture'),
  payments('post', '/transactions/:transactionId/void'),
  payments('post', '/transactions/:transactionId/refunds'),
  payments('get', '/transactions/:transactionId/refunds'),
  withNames(payments('get', '/orders'), { customers: true, emailFilter: 'customer_id' }),
  withNames(payments('get', '/orders/:orderId'), { customers: true }),
  webhooks('/merchants/:merchant_id/webhook-configs', '/merchant/webhook-configs'),
  webhooks('/merchants/:merchant_id/webhook-configs/:webhook_id', '/merchant/webhook-configs/:webhook_id'),
  webhooks('/merchants/:merchant_id/webhook-deliveries', '/merchant/webhook-deliveries'),
  connectors(connectorRoutes, '/merchants/:merchant_id/connectors', '/merchant/connectors'),
  connectors(connectorRoutes, '/merchants/:merchant_id/connectors/:connector_id', '/merchant/connectors/:connector_id'),
  connectors(paymentProviderRoutes, '/payment-providers', '/merchant/payment-providers'),
  connectors(paymentProviderRoutes, '/payment-providers/:provider_id', '/merchant/payment-providers/:provider_id'),
  servedToDashboard(
    paymentInstrumentRoutes,
    'get',
    '/merchants/:merchant_id/payment-instruments',
    '/merchant/payment-instruments',
    'catalog and instruments',
  ),
  catalog(productRoutes, '/products'),
  catalog(offerRoutes, '/offers'),
  catalog(offerRoutes, '/offers/:id'),
  catalog(offerTransitionRoutes, '/offer-transitions/effective-behavior'),
  // The Catalog page: products → offers → prices, and a payment link (a checkout session for a price).
  catalog(productRoutes, '/products/:productId'),
  catalog(productRoutes, '/products', 'post'),
  catalog(offerRoutes, '/offers', 'post'),
  catalog(offerPriceRoutes, '/offers/:offerId/prices'),
  catalog(checkoutSessionRoutes, '/checkout-sessions', 'post'),
  // The Customers page: search, and one customer (their payments, subscriptions and cards come from those lists).
  merchantDashboardCustomersRoute,
  servedToDashboard(customerRoutes, 'get', '/customers/:customerId', '/merchant/customers/:customerId', 'customers'),
  // A customer's test clock: its frozen time is the time of their subscriptions (the clock badge).
  servedToDashboard(
    testClockRoutes,
    'get',
    '/test-clocks/:test_clock_id',
    '/merchant/test-clocks/:test_clock_id',
    'test clocks',
  ),
];
