/**
 * One declaration per endpoint, and the table that matches a request to it. From the declaration come validation,
 * auth, the envelope, idempotency and the OpenAPI document (see route-runner.ts and openapi.ts); handlers receive
 * already-checked input.
 */
import Router from '@koa/router';
import type { Middleware, Next, ParameterizedContext } from 'koa';
import type { Static, TSchema, TObject } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../deps';
import type { ApiKeyAuth, AuthRequirement } from './auth';
import type { DashboardRequirement, DashboardSession } from './dashboard-auth';
import type { Pagination } from './pagination';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';
export type Envelope = 'wrapped' | 'bare';

export interface HandlerInput<P extends TSchema, Q extends TSchema, B extends TSchema> {
  params: Static<P>;
  query: Static<Q>;
  body: Static<B>;
  /** The calling key (null only on unauthenticated routes). */
  auth: ApiKeyAuth;
  /** The merchant the request acts on; only readable on merchant-scoped routes (and merchant Dashboard routes). */
  readonly merchantId: string;
  /** Dashboard routes: the signed-in person; only readable there. */
  readonly session: DashboardSession;
  /** Organization Dashboard routes: the organization named by x-organization-id (a checked membership). */
  readonly organizationId: string;
  /** A forked EntityManager; inside the request's transaction for mutating routes (except `waitsOnWorkflow`). */
  em: EntityManager;
  deps: AppDeps;
  requestId: string;
  /** Who sent the request: address (X-Forwarded-For honoured only behind a proxy, see app.proxy) and User-Agent. */
  client: { ip: string; userAgent: string | null };
  /** A request header (e.g. X-Session-Id on the browser endpoints); undefined when absent or empty. */
  header(name: string): string | undefined;
  /**
   * On idempotent routes called with a key: a digest of (scope, key, request fingerprint). The same request
   * retried with the same key gets the same value even when its first try failed and stored nothing.
   */
  idempotencySeed?: string;
}

/**
 * An OpenAPI link from this route's success response to another route, for callers and for Schemathesis's
 * stateful phase (which chains calls along links instead of guessing ids). Links that follow from the paths alone
 * (a create or a list → the routes under `<its path>/:id`) are derived in openapi-links.ts; declare only the others.
 */
export interface RouteLink {
  /** The target route as declared: method and Koa path, e.g. 'get /offer-prices/:id'. */
  to: `${HttpMethod} /${string}`;
  /**
   * Target parameter → where its value comes from. Keys: a path or query parameter name, or `body.<field>` for a
   * top-level field of the target's body. Values: a field of the returned resource (`id`, `prices/0/id`: a JSON
   * pointer below the resource, whatever the envelope) or `:<name>` for a path parameter of this request.
   */
  from: Record<string, string>;
  /** The success status carrying the link (default: every 2xx with a body). */
  status?: number;
}

export interface HandlerResult {
  status: number;
  /** The resource (or list items); its shape is the route's response schema for `status`. */
  data?: unknown;
  /** Present on list responses. */
  pagination?: Pagination;
}

export interface RouteDefinition<
  P extends TSchema = TObject,
  Q extends TSchema = TObject,
  B extends TSchema = TObject,
> {
  method: HttpMethod;
  /** Koa path under /api/v1, e.g. '/customers/:customerId'. */
  path: string;
  /** Extra absolute paths to serve the same route at (health probes at /health for orchestrators). */
  alsoAt?: string[];
  summary: string;
  /**
   * What the route does beyond its summary, for the OpenAPI description (side effects, events, the errors a caller
   * meets). Who may call it, idempotency and paging are added from the declaration (openapi-descriptions.ts).
   */
  description?: string;
  tags: string[];
  /** API keys (AuthRequirement), a Dashboard session (DashboardRequirement), or nothing. */
  auth: AuthRequirement | DashboardRequirement | 'none';
  params?: P;
  query?: Q;
  body?: B;
  /** A request body that passes `body`, shown in the OpenAPI document (test/unit/openapi-descriptions.test.ts validates it). */
  example?: Static<B>;
  /** The `data` of the first 2xx response with a body, shown (in its envelope) in the OpenAPI document. */
  responseExample?: unknown;
  /** Status → schema of `data` (null for an empty body). Every route declares at least one 2xx. */
  responses: Record<number, TSchema | null>;
  envelope: Envelope;
  /**
   * Error statuses the route answers beyond those its auth implies (400 and 500 for every route; 401, 403, 404,
   * 409, 429 and 502 with API keys or a Dashboard session), so the OpenAPI document lists every status it can
   * answer: an unauthenticated route that checks a credential of its own (a password, a token) declares 401.
   */
  errors?: number[];
  /** OpenAPI links beyond the derived ones (see RouteLink). */
  links?: RouteLink[];
  /** Lists: where the pagination object goes (wrapped lists always nest it in meta.pagination). */
  pagination?: 'nested' | 'flat';
  /** Create endpoints: Idempotency-Key header or idempotency_key body field. */
  idempotency?: 'optional' | 'required';
  /**
   * The handler waits on a Temporal workflow, so it runs with no database transaction open (a transaction held
   * across that wait would pin a pooled connection and row locks). Its writes are the workflow's; with an
   * Idempotency-Key its ids derive from `idempotencySeed`, so running it again finds the same workflow.
   */
  waitsOnWorkflow?: boolean;
  /**
   * The handler opens its own transactions: sign-in endpoints must keep what they record on the way to a 401 (a
   * failed-login count, a refresh-token family revoked on reuse), which one request-wide transaction would undo.
   */
  ownTransactions?: boolean;
  /**
   * The route revokes credentials (Dashboard sessions, API keys): once it has committed (or failed after committing
   * a revocation, as a refresh-token reuse does) this process's auth cache is emptied, so the next request is refused
   * at once; other processes empty theirs on the NOTIFY the change sends.
   */
  revokesCredentials?: boolean;
  /**
   * Merchant-scoped writes are refused while the merchant is suspended or inactive (auth.ts); a route
   * that must stay open then (revoking a key of a suspended merchant) says so here.
   */
  anyMerchantStatus?: boolean;
  /** A POST that computes and changes nothing (routing simulate): a Dashboard viewer may call it like a GET. */
  changesNothing?: boolean;
  handler(input: HandlerInput<P, Q, B>): Promise<HandlerResult>;
}

export function isDashboardAuth(auth: RouteDefinition['auth']): auth is DashboardRequirement {
  return auth !== 'none' && 'dashboard' in auth;
}

export function defineRoute<P extends TSchema = TObject, Q extends TSchema = TObject, B extends TSchema = TObject>(
  definition: RouteDefinition<P, Q, B>,
): RouteDefinition<P, Q, B> {
  return definition;
}

// Handlers are contravariant in their input; the registry only needs to call them with checked input.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDefinition<any, any, any>;

/*
 * The route table: the routes, one @koa/router per first path segment (`/api/v1/customers/…` → "customers"). A @koa/router tests the
 * regular expression of every route it holds on every request; with ~190 routes in one router that was paid on each
 * request, growing with every route added (docs/benchmarks.md, "API request path, statements and profile"). Here a
 * request is matched only against the routes of its own segment (35 at most). Routes of a segment all sit in one
 * router, so 405 + Allow and OPTIONS answer as before; a segment nobody serves goes through an empty router, so an
 * unknown method still gets 501 (then the envelope's 405) and everything else the 404 of the envelope.
 */
/** The first segment under the prefix (or of the path, outside it); case-insensitive like @koa/router's default. */
function groupOf(prefix: string, path: string): string {
  const lower = path.toLowerCase();
  const underPrefix = lower.startsWith(`${prefix}/`);
  const rest = underPrefix ? lower.slice(prefix.length + 1) : lower.slice(1);
  const end = rest.indexOf('/');
  const segment = end === -1 ? rest : rest.slice(0, end);
  return underPrefix ? `${prefix}/${segment}` : `/${segment}`;
}

export class RouteTable {
  private readonly routers = new Map<string, Router>();

  constructor(private readonly prefix: string) {}

  add(method: HttpMethod, path: string, middleware: Middleware): void {
    const group = groupOf(this.prefix.toLowerCase(), path);
    // A parameter or pattern as the first segment would match requests of other groups.
    if (/[:*(?{]/.test(group)) throw new Error(`route-table: ${path} needs a literal first segment`);
    let router = this.routers.get(group);
    if (!router) this.routers.set(group, (router = new Router()));
    router[method](path, middleware);
  }

  /** How many routes a request to `path` is matched against (its group's; none when no group serves it). */
  candidates(path: string): number {
    return this.routers.get(groupOf(this.prefix.toLowerCase(), path))?.stack.length ?? 0;
  }

  /**
   * The request's group: its routes, then (when none answered) its allowed methods. A request one route answers
   * runs that route's handler directly, with the context @koa/router gives it (params, captures, the matched
   * template the request's metrics and span are named by): the router's own dispatch builds a middleware chain,
   * its closures and a composed function for every request. Anything else (no route, or more than one layer)
   * goes through the router as before, for 405 + Allow, OPTIONS and 501.
   */
  middleware(): Middleware {
    const prefix = this.prefix.toLowerCase();
    const groups = new Map<string, { router: Router; chain: Middleware }>();
    for (const [group, router] of this.routers) groups.set(group, { router, chain: chain(router) });
    const unknown = chain(new Router());
    return (ctx: ParameterizedContext, next: Next) => {
      const group = groups.get(groupOf(prefix, ctx.path));
      if (!group) return unknown(ctx, next) as Promise<void>;
      const path = ctx.path;
      const matched = group.router.match(path, ctx.method);
      const [layer] = matched.pathAndMethod;
      if (!matched.route || matched.pathAndMethod.length !== 1 || layer.stack.length !== 1) {
        return group.chain(ctx, next) as Promise<void>;
      }
      const routed = ctx as RoutedContext;
      routed.matched = matched.path;
      routed.router = group.router;
      routed.routeMatched = true;
      routed.captures = layer.captures(path);
      routed.params = routed.request.params = layer.params(path, routed.captures, routed.params);
      routed.routerPath = layer.path;
      routed._matchedRoute = layer.path;
      return (layer.stack[0] as unknown as Middleware)(ctx, next) as Promise<void>;
    };
  }
}

/** What @koa/router sets on a context it routes (its types declare only some of it). */
type RoutedContext = ParameterizedContext & {
  matched: unknown[];
  router: Router;
  routeMatched: boolean;
  captures: string[];
  params: Record<string, string>;
  request: { params: Record<string, string> };
  routerPath: string | RegExp;
  _matchedRoute: string | RegExp;
};

/** What `app.use(router.routes()); app.use(router.allowedMethods())` did: allowedMethods runs when no route answered. */
function chain(router: Router): Middleware {
  const routes = router.routes() as unknown as Middleware;
  const allowed = router.allowedMethods() as unknown as Middleware;
  return (ctx, next) => routes(ctx, () => allowed(ctx, next) as Promise<void>) as Promise<void>;
}
