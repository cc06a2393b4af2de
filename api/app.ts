/**
 * The API app: every route it serves (ROUTES), what it mounts by path besides them (mountOf), and its middleware
 * stack. buildApp(deps) → a Koa app; no listen (the server and the tests do that).
 */
import Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { AppDeps } from './deps';
import { errors } from '../domain/platform/errors';
import { apiResponseHeaders, requestContext, type InFlightRequests } from './http/request-context';
import { mountRoute } from './http/route-runner';
import { defineRoute, RouteTable, type AnyRoute } from './http/define-route';
import { Type } from '@sinclair/typebox';
import { buildOpenApi } from './http/openapi';
import { buildIntegrationOpenApi } from './http/openapi-integration';
import { healthRoutes } from './modules/health/health.routes';
import { authRoutes } from './modules/auth/auth.routes';
import { invitationRoutes } from './modules/invitations/invitations.routes';
import { customerRoutes } from './modules/customers/customers.routes';
import { productFamilyRoutes } from './modules/product-families/product-families.routes';
import { productRoutes } from './modules/products/products.routes';
import { offerRoutes } from './modules/offers/offers.routes';
import { offerPriceRoutes } from './modules/offer-prices/offer-prices.routes';
import { offerTransitionRoutes } from './modules/offer-transitions/offer-transitions.routes';
import { checkoutSessionRoutes } from './modules/checkout-sessions/checkout-sessions.routes';
import { merchantRoutes } from './modules/merchants/merchants.routes';
import { memberRoutes } from './modules/merchants/members.routes';
import { connectorRoutes } from './modules/connectors/connectors.routes';
import { orgConnectorRoutes } from './modules/connectors/org-connectors.routes';
import { organizationSettingsRoutes } from './modules/organizations/organization-settings.routes';
import { paymentProviderRoutes } from './modules/payment-providers/payment-providers.routes';
import { routingRoutes } from './modules/routing/routing.routes';
import { browserSessionRoutes } from './modules/browser-sessions/browser-sessions.routes';
import { tokenRoutes } from './modules/tokens/tokens.routes';
import { enrolmentTokenRoutes } from './modules/tokens/enrolment-tokens.routes';
import { paymentInstrumentRoutes } from './modules/payment-instruments/payment-instruments.routes';
import { webhookRoutes } from './modules/webhooks/webhook-deliveries.routes';
import { eventRoutes } from './modules/events/events.routes';
import { transactionRoutes } from './modules/transactions/transactions.routes';
import { orderRoutes } from './modules/orders/orders.routes';
import { subscriptionRoutes } from './modules/subscriptions/subscriptions.routes';
import { dashboardSubscriptionRoutes } from './modules/subscriptions/dashboard-subscriptions.routes';
import { merchantDashboardRoutes } from './modules/merchant-dashboard/merchant-dashboard.routes';
import { merchantDashboardWriteRoutes } from './modules/merchant-dashboard/merchant-dashboard-writes.routes';
import { merchantDashboardTeamRoutes } from './modules/merchant-dashboard/merchant-dashboard-team.routes';
import { merchantDashboardWebhookRoutes } from './modules/merchant-dashboard/merchant-dashboard-webhooks.routes';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes';
import { organizationApiKeyRoutes } from './modules/api-keys/org-api-keys.routes';
import { testClockRoutes } from './modules/test-clocks/test-clocks.routes';
import { dashboardTestClockRoutes } from './modules/test-clocks/dashboard-test-clocks.routes';
import { browserAssets } from './modules/sdk/browser-assets.middleware';
import { providerWebhookRoutes } from './modules/provider-webhooks/provider-webhooks.routes';
import { threeDsReturn } from './modules/transactions/three-ds-return.middleware';
import { RENEWAL_AUTHENTICATION_PATH } from '../domain/subscriptions/subscriptions.authentication';
import { dashboardWeb } from './modules/dashboard-web/dashboard-web.middleware';
import { apiDocs } from './modules/api-docs/api-docs.middleware';
import { clientAddressMiddleware } from './http/client-address';
import { refuseUntrustedProxies } from './http/untrusted-proxy';
import { requireBoundedJsonDepth } from './http/schema';
import { liveness } from './modules/health/liveness.middleware';
import { httpMetrics, requestTracing } from './http/telemetry';

export const API_PREFIX = '/api/v1';

/** Every API route, in the order they appear in the OpenAPI document. */
export const ROUTES: readonly AnyRoute[] = [
  ...healthRoutes,
  ...authRoutes,
  ...invitationRoutes,
  ...customerRoutes,
  ...productFamilyRoutes,
  ...productRoutes,
  ...offerRoutes,
  ...offerPriceRoutes,
  ...offerTransitionRoutes,
  ...checkoutSessionRoutes,
  ...merchantRoutes,
  ...memberRoutes,
  ...apiKeyRoutes,
  ...organizationApiKeyRoutes,
  ...connectorRoutes,
  ...orgConnectorRoutes,
  ...organizationSettingsRoutes,
  ...paymentProviderRoutes,
  ...routingRoutes,
  ...browserSessionRoutes,
  ...tokenRoutes,
  ...enrolmentTokenRoutes,
  ...paymentInstrumentRoutes,
  ...webhookRoutes,
  ...eventRoutes,
  ...transactionRoutes,
  ...orderRoutes,
  ...subscriptionRoutes,
  ...dashboardSubscriptionRoutes,
  ...testClockRoutes,
  ...dashboardTestClockRoutes,
  ...merchantDashboardRoutes,
  ...merchantDashboardWriteRoutes,
  ...merchantDashboardTeamRoutes,
  ...merchantDashboardWebhookRoutes,
];

function openApiRoute(path: string, summary: string, document: () => unknown): AnyRoute {
  return defineRoute({
    method: 'get',
    path,
    summary,
    tags: ['Meta'],
    auth: 'none',
    envelope: 'bare',
    responses: { 200: Type.Object({ openapi: Type.String() }) },
    handler: async () => ({ status: 200, data: document() }),
  });
}

/**
 * The routes the API mounts, the OpenAPI documents' own among them, and the documents as they are published (`npm
 * run lint:openapi` lints the same): the whole API at GET /api/v1/openapi.json, and the integration document (no
 * Dashboard endpoints; what /docs renders) at GET /api/v1/openapi/integration.json. `serverUrl`: PUBLIC_BASE_URL.
 */
export function apiRoutesAndDocument(serverUrl?: string): {
  routes: AnyRoute[];
  openApi: Record<string, unknown>;
  integration: Record<string, unknown>;
} {
  const routes = [
    ...ROUTES,
    openApiRoute('/openapi.json', 'This OpenAPI 3.1 document', () => openApi),
    openApiRoute(
      '/openapi/integration.json',
      'The integration API (no Dashboard endpoints) as OpenAPI 3.1',
      () => integration,
    ),
  ];
  const openApi = buildOpenApi(routes, API_PREFIX, serverUrl);
  const integration = buildIntegrationOpenApi(routes, API_PREFIX, serverUrl);
  return { routes, openApi, integration };
}

/** Unknown paths and methods still get the error envelope. */
function refuseUnmatched(ctx: Koa.Context): void {
  if (ctx.status === 405 || ctx.status === 501) {
    throw errors.badRequest('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}`, 405);
  }
  if (ctx.status === 404 && ctx.body === undefined) {
    throw errors.notFound(`No endpoint ${ctx.method} ${ctx.path}`, 'ROUTE_NOT_FOUND');
  }
}

/** The methods whose body is read: DELETE too, so a body sent where none belongs is refused rather than ignored. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The JSON body, its nesting bound, the routes (then 405 + Allow for a known path with another method, and OPTIONS),
 * and the envelope of an unknown path or method, as one layer: a GET never enters the body parser, and a request
 * passes one Koa layer here instead of four.
 */
function bodyAndRoutes(deps: AppDeps, table: RouteTable): (ctx: Koa.Context, next: Koa.Next) => Promise<void> {
  const parseJson = koaBody({
    json: true,
    jsonStrict: true,
    jsonLimit: deps.config.bodyLimitBytes,
    urlencoded: false,
    text: false,
    multipart: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  });
  const routes = table.middleware();
  const routed = async (ctx: Koa.Context, next: Koa.Next): Promise<void> => {
    requireBoundedJsonDepth(ctx);
    await routes(ctx, next);
    refuseUnmatched(ctx);
  };
  return (ctx: Koa.Context, next: Koa.Next): Promise<void> =>
    BODY_METHODS.has(ctx.method) ? (parseJson(ctx, () => routed(ctx, next)) as Promise<void>) : routed(ctx, next);
}

/** What the app serves besides its JSON routes, each mounted on its own paths below. */
type MountName = 'provider webhooks' | '3-D Secure return' | 'browser assets' | 'dashboard app' | 'api reference';

/**
 * The mount table: which mount serves a path, decided here by path alone, so a request to any other path (every
 * /api/v1 route, a charge among them) runs none of their code. Provider webhooks need their raw bytes for the
 * signature and the buyer's browser comes back from a 3-D Secure challenge (or follows a renewal's authentication
 * link) as a browser page, so both are served before the JSON body parser. The SDK, its card frame and the hosted
 * checkout page live outside /api/v1, and the same mount answers CORS for the public-key endpoints; the merchant
 * Dashboard web app is at /dashboard/ (its API calls go to /api/v1 like any client's) and the rendered API
 * reference at /docs.
 */
export function mountOf(path: string): MountName | undefined {
  if (path.startsWith(`${API_PREFIX}/`)) {
    const rest = path.slice(API_PREFIX.length);
    if (rest.startsWith('/webhooks/inbound/')) return 'provider webhooks';
    if (path === RENEWAL_AUTHENTICATION_PATH) return '3-D Secure return';
    if (rest.startsWith('/transactions/') && rest.endsWith('/three-ds/return')) return '3-D Secure return';
    if (rest === '/tokens' || rest === '/sessions' || rest.startsWith('/sessions/')) return 'browser assets';
    return undefined;
  }
  if (path.startsWith('/sdk/') || path.startsWith('/checkout/')) return 'browser assets';
  if (path === '/dashboard' || path.startsWith('/dashboard/')) return 'dashboard app';
  if (path === '/docs' || path.startsWith('/docs/')) return 'api reference';
  return undefined;
}

/**
 * The mounts, then the JSON body and the routes: a mount either answers or passes the request on (a method or an
 * asset it does not serve) to the routes, which end it with the envelope of an unknown path.
 */
function mountsAndRoutes(deps: AppDeps, table: RouteTable): Koa.Middleware {
  const mounts: Record<MountName, Koa.Middleware> = {
    'provider webhooks': providerWebhookRoutes(deps),
    '3-D Secure return': threeDsReturn(deps),
    'browser assets': browserAssets(API_PREFIX),
    'dashboard app': dashboardWeb(),
    'api reference': apiDocs(),
  };
  const routes = bodyAndRoutes(deps, table);
  return (ctx, next): Promise<void> => {
    const mount = mountOf(ctx.path);
    if (mount === undefined) return routes(ctx, next);
    return mounts[mount](ctx, () => routes(ctx, next)) as Promise<void>;
  };
}

/** The liveness probe's paths (liveness.middleware.ts answers a plain GET of them, before everything else). */
const LIVENESS_PATHS = new Set([`${API_PREFIX}/health/live`, '/health/live']);

/** `inFlight`: counts running requests so a stop can drain them (startApi passes it; tests building an app need not). */
export function buildApp(deps: AppDeps, inFlight?: InFlightRequests): Koa {
  const app = new Koa();
  // Koa must not read X-Forwarded-For itself (it believes the client's left-most entry): clientAddressMiddleware does.
  app.proxy = false;
  const table = new RouteTable(API_PREFIX);

  const { routes } = apiRoutesAndDocument(deps.config.publicBaseUrl);
  for (const route of routes) mountRoute(table, API_PREFIX, route, deps);

  // The liveness probe answers synchronously, before everything (no request log, nothing to drain).
  app.use((ctx, next) => (LIVENESS_PATHS.has(ctx.path) ? liveness(ctx, next) : next()));
  if (inFlight) app.use((ctx, next) => inFlight.middleware(ctx, next));
  app.use(clientAddressMiddleware(deps.config.trustedProxies));
  // Request durations only where an endpoint serves them (API_METRICS_PORT not off).
  if (deps.config.telemetry.metrics.apiPort !== null) app.use(httpMetrics);
  app.use(requestTracing);
  app.use(requestContext(deps.logger));
  if (deps.config.env === 'production') app.use(refuseUntrustedProxies(deps.config.trustedProxies, deps.logger));
  app.use(apiResponseHeaders(API_PREFIX));
  app.use(mountsAndRoutes(deps, table));
  return app;
}
