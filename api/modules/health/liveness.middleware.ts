/**
 * GET /health/live without the route machinery: orchestrators probe it often and it must answer even when
 * everything behind the process is slow, so it touches no database, pool or validator. It runs before the request
 * log (requestContext): a probe every few seconds per orchestrator is noise in the request log, and the log line
 * was a fifth of the probe's CPU. It still carries its X-Request-Id, like every response. The route in
 * health.routes.ts stays for the OpenAPI document and for the requests this shortcut leaves to it (a query string,
 * which the route validates; other methods, which get 405).
 */
import type { Context, Next } from 'koa';
import type { HealthReport } from './health.service';
import { newId } from '../../../domain/platform/ids';

const LIVE: HealthReport = {
  status: 'ok',
  info: { process: { status: 'up' } },
  error: {},
  details: { process: { status: 'up' } },
};
const LIVE_BODY = JSON.stringify(LIVE);

/** Answers a plain GET of the probe's paths (api/app.ts mounts it on them); anything else goes on to the route. */
export function liveness(ctx: Context, next: Next) {
  if (ctx.method !== 'GET' || ctx.querystring !== '') return next();
  ctx.set('X-Request-Id', newId('req'));
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = LIVE_BODY;
  return undefined;
}
