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
import { threeDsReturn } from './modules/transactions/three-ds-return.middleware';
import { dashboardWeb } from './modules/dashboard-web/dashboard-web.middleware';
import { apiDocs } from './modules/api-docs/api-docs.middleware';
import { clientAddressMiddleware } from './http/client-address';
import { refuseUntrustedProxies } from './http/untrusted-proxy';
import { apiResponseHeaders, boundedJsonDepth } from './http/request-guards';
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
async function unmatchedRequests(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  await next();
  if (ctx.status === 405 || ctx.status === 501) {
    throw errors.badRequest('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}`, 405);
  }
  if (ctx.status === 404 && ctx.body === undefined) {
    throw errors.notFound(`No endpoint ${ctx.method} ${ctx.path}`, 'ROUTE_NOT_FOUND');
  }
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
  // The SDK, its card frame and the hosted checkout page (outside /api/v1), and CORS for the public-key endpoints.
  app.use(browserAssets(API_PREFIX));
  // Provider webhooks need their raw bytes for the signature: served before the JSON body parser.
  app.use(providerWebhookRoutes(deps));
  // The buyer's browser back from a 3-D Secure challenge (a redirect, not a JSON call).
  app.use(threeDsReturn(deps));
  app.use(
    koaBody({
      json: true,
      jsonStrict: true,
      jsonLimit: deps.config.bodyLimitBytes,
      urlencoded: false,
      text: false,
      multipart: false,
      // DELETE bodies are read too, so one sent where none belongs is refused rather than ignored.
      parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    }),
  );
  app.use(boundedJsonDepth);
  app.use(unmatchedRequests);
  // The routes, then 405 + Allow for a known path with another method (and answers OPTIONS).
  app.use(table.middleware());
  // Past the routes: a request a route answers never reaches these, so the pages outside /api/v1 cost an API request
  // nothing. The merchant Dashboard web app at /dashboard/ (its API calls go to /api/v1 like any client's).
  app.use(dashboardWeb());
  // The rendered API reference at /docs (Redoc over the integration document).
  app.use(apiDocs());
  return app;
}
