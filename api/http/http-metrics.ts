/**
 * switchyard_http_request_duration_seconds for every request but the liveness probe: labelled with the route's
 * template (`/api/v1/transactions/:id`), never the path itself, so an id or a scanner's invented path adds no
 * series. Paths outside the API's routes (the Dashboard's assets, unknown paths) are one template each: `static`
 * for what the browser middleware serve, `unmatched` for the rest.
 */
import type { Context, Next } from 'koa';
import { httpRequestDuration } from '../../domain/platform/metrics';

/** Methods a client can invent are folded into one value. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function routeOf(ctx: Context): string {
  // Set by @koa/router on the route that answered.
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') return matched;
  return ctx.status < 400 ? 'static' : 'unmatched';
}

export async function httpMetrics(ctx: Context, next: Next): Promise<void> {
  const started = process.hrtime.bigint();
  try {
    await next();
  } finally {
    // Measured outside the request context: the envelope of an error is already written when this sees it.
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    httpRequestDuration.observe(
      {
        method: KNOWN_METHODS.has(ctx.method) ? ctx.method : 'OTHER',
        route: routeOf(ctx),
        status: String(ctx.status),
      },
      seconds,
    );
  }
}
