/** buildApp(deps) → a Koa app with every route; no listen (the server and the tests do that). */
import Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { AppDeps } from './deps';
import { errors } from '../domain/platform/errors';
import { requestContext } from './http/request-context';
import type { InFlightRequests } from './http/in-flight';
import { mountRoute } from './http/route-runner';
import { RouteTable } from './http/route-table';
import { defineRoute, type AnyRoute } from './http/define-route';
import { Type } from '@sinclair/typebox';
import { buildOpenApi } from './http/openapi';
import { buildIntegrationOpenApi } from './http/openapi-integration';
import { ROUTES } from './routes';
import { browserAssets } from './modules/sdk/browser-assets.middleware';
import { providerWebhookRoutes } from './modules/provider-webhooks/provider-webhooks.routes';
import { isThreeDsReturnPath, threeDsReturn } from './modules/transactions/three-ds-return.middleware';
import { dashboardWeb } from './modules/dashboard-web/dashboard-web.middleware';
import { apiDocs } from './modules/api-docs/api-docs.middleware';
import { clientAddressMiddleware } from './http/client-address';
import { refuseUntrustedProxies } from './http/untrusted-proxy';
import { apiResponseHeaders, requireBoundedJsonDepth } from './http/request-guards';
import { liveness } from './modules/health/liveness.middleware';
import { httpMetrics, requestTracing } from './http/telemetry';

export const API_PREFIX = '/api/v1';

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
function bodyAndRoutes(deps: AppDeps, table: RouteTable): Koa.Middleware {
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
  return (ctx, next): Promise<void> =>
    BODY_METHODS.has(ctx.method) ? (parseJson(ctx, () => routed(ctx, next)) as Promise<void>) : routed(ctx, next);
}

/**
 * What is served before the JSON body parser, each on its own paths, as one layer that hands a request to the one
 * whose paths it is on: provider webhooks (they need their raw bytes for the signature), the buyer's browser back
 * from a 3-D Secure challenge and a renewal's authentication link (browser pages, not JSON calls), and everything else to the SDK, its card frame and the
 * hosted checkout page (outside /api/v1), which also answers CORS for the public-key endpoints.
 */
function beforeTheBody(deps: AppDeps): Koa.Middleware {
  const providerWebhooks = providerWebhookRoutes(deps);
  const threeDs = threeDsReturn(deps);
  const browser = browserAssets(API_PREFIX);
  const inbound = `${API_PREFIX}/webhooks/inbound/`;
  return (ctx, next): Promise<void> => {
    const path = ctx.path;
    if (path.startsWith(inbound)) return providerWebhooks(ctx, next) as Promise<void>;
    if (isThreeDsReturnPath(path)) return threeDs(ctx, next) as Promise<void>;
    return browser(ctx, next);
  };
}

/** `inFlight`: counts running requests so a stop can drain them (startApi passes it; tests building an app need not). */
export function buildApp(deps: AppDeps, inFlight?: InFlightRequests): Koa {
  const app = new Koa();
  // Koa must not read X-Forwarded-For itself (it believes the client's left-most entry): clientAddressMiddleware does.
  app.proxy = false;
  const table = new RouteTable(API_PREFIX);

  const { routes } = apiRoutesAndDocument(deps.config.publicBaseUrl);
  for (const route of routes) mountRoute(table, API_PREFIX, route, deps);

  // The liveness probe answers synchronously, before everything (no request log, nothing to drain).
  app.use(liveness(API_PREFIX));
  if (inFlight) app.use((ctx, next) => inFlight.middleware(ctx, next));
  app.use(clientAddressMiddleware(deps.config.trustedProxies));
  // Request durations only where an endpoint serves them (API_METRICS_PORT not off).
  if (deps.config.telemetry.metrics.apiPort !== null) app.use(httpMetrics);
  app.use(requestTracing);
  app.use(requestContext(deps.logger));
  if (deps.config.env === 'production') app.use(refuseUntrustedProxies(deps.config.trustedProxies, deps.logger));
  app.use(apiResponseHeaders(API_PREFIX));
  app.use(beforeTheBody(deps));
  app.use(bodyAndRoutes(deps, table));
  // Past the routes: a request a route answers never reaches these, so the pages outside /api/v1 cost an API request
  // nothing. The merchant Dashboard web app at /dashboard/ (its API calls go to /api/v1 like any client's).
  app.use(dashboardWeb());
  // The rendered API reference at /docs (Redoc over the integration document).
  app.use(apiDocs());
  return app;
}
