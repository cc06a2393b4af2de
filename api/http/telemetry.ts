/**
 * What an operator sees of each API request (the liveness probe excepted), both named by the route's template and
 * never by the raw path: its duration in the metrics and its server span in the trace.
 */
import type { Context, Next } from 'koa';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { httpRequestDuration, type HistogramSeries } from '../../domain/platform/metrics';
import { tracingRuns } from '../../domain/platform/tracing';

/** Methods a client can invent are folded into one value. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The template of the route that answered, set by @koa/router; undefined outside the API's routes. */
function matchedRoute(ctx: Context): string | undefined {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : undefined;
}

function routeOf(ctx: Context): string {
  return matchedRoute(ctx) ?? (ctx.status < 400 ? 'static' : 'unmatched');
}

/**
 * The histogram's series by method, route template and status, made on first use (all three are bounded): a request
 * looks its series up in three maps and records into it without allocating (no label object, no status string, no
 * hash of the labels).
 */
const series = new Map<string, Map<string, Map<number, HistogramSeries>>>();

function seriesOf(method: string, route: string, status: number): HistogramSeries {
  let byRoute = series.get(method);
  if (!byRoute) series.set(method, (byRoute = new Map<string, Map<number, HistogramSeries>>()));
  let byStatus = byRoute.get(route);
  if (!byStatus) byRoute.set(route, (byStatus = new Map<number, HistogramSeries>()));
  let observer = byStatus.get(status);
  if (!observer)
    byStatus.set(status, (observer = httpRequestDuration.series({ method, route, status: String(status) })));
  return observer;
}

/**
 * switchyard_http_request_duration_seconds for every request but the liveness probe: labelled with the route's
 * template (`/api/v1/transactions/:id`), never the path itself, so an id or a scanner's invented path adds no
 * series. Paths outside the API's routes (the Dashboard's assets, unknown paths) are one template each: `static`
 * for what the browser middleware serve, `unmatched` for the rest. Mounted only when the API serves its metrics
 * (buildApp): with API_METRICS_PORT off nothing would ever read them.
 */
export async function httpMetrics(ctx: Context, next: Next): Promise<void> {
  const started = performance.now();
  try {
    await next();
  } finally {
    // Measured outside the request context: the envelope of an error is already written when this sees it.
    const method = KNOWN_METHODS.has(ctx.method) ? ctx.method : 'OTHER';
    seriesOf(method, routeOf(ctx), ctx.status).observe((performance.now() - started) / 1000);
  }
}

/**
 * The API's server span: one per request (the liveness probe excepted), continuing a caller's W3C `traceparent`,
 * named by method and route template — never the raw path, which may hold a token (inbound provider webhooks) — and
 * carrying the request id the error envelope quotes, so an operator finds a merchant's failed request in the trace
 * UI by it. Everything the request does (the Temporal start, the workflow, its activities) is a child of this span.
 *
 * What a request pays is what its trace keeps: while tracing is off, nothing at all; when the sampler drops the
 * trace, the SDK's non-recording span, which only carries the trace id and the "not sampled" flag on to the
 * Temporal start and the log line, and gets no name or attributes.
 */
const tracer = trace.getTracer('switchyard-api');

export async function requestTracing(ctx: Context, next: Next): Promise<void> {
  if (!tracingRuns()) {
    await next();
    return;
  }
  const parent = propagation.extract(context.active(), ctx.headers);
  const span = tracer.startSpan('request', { kind: SpanKind.SERVER }, parent);
  try {
    await context.with(trace.setSpan(parent, span), next);
  } finally {
    if (span.isRecording()) {
      const route = matchedRoute(ctx);
      span.updateName(`${ctx.method} ${route ?? 'request'}`);
      span.setAttributes({
        'http.request.method': ctx.method,
        'http.response.status_code': ctx.status,
        'switchyard.request_id': String(ctx.state.requestId ?? ''),
        ...(route ? { 'http.route': route } : {}),
      });
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}
