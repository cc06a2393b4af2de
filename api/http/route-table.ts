/**
 * The routes, one @koa/router per first path segment (`/api/v1/customers/…` → "customers"). A @koa/router tests the
 * regular expression of every route it holds on every request; with ~190 routes in one router that was paid on each
 * request, growing with every route added (docs/benchmarks.md, "API request path, statements and profile"). Here a
 * request is matched only against the routes of its own segment (35 at most). Routes of a segment all sit in one
 * router, so 405 + Allow and OPTIONS answer as before; a segment nobody serves goes through an empty router, so an
 * unknown method still gets 501 (then the envelope's 405) and everything else the 404 of the envelope.
 */
import Router from '@koa/router';
import type { Middleware, Next, ParameterizedContext } from 'koa';
import type { HttpMethod } from './define-route';

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
