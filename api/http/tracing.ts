/**
 * The API's server span: one per request (the liveness probe excepted), continuing a caller's W3C `traceparent`,
 * named by method and route template — never the raw path, which may hold a token (inbound provider webhooks) — and
 * carrying the request id the error envelope quotes, so an operator finds a merchant's failed request in the trace
 * UI by it. Everything the request does (the Temporal start, the workflow, its activities) is a child of this span.
 */
import type { Context, Next } from 'koa';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('switchyard-api');

export async function requestTracing(ctx: Context, next: Next): Promise<void> {
  const parent = propagation.extract(context.active(), ctx.headers);
  const span = tracer.startSpan(`${ctx.method} request`, { kind: SpanKind.SERVER }, parent);
  try {
    await context.with(trace.setSpan(parent, span), next);
  } finally {
    const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
    const route = typeof matched === 'string' ? matched : undefined;
    if (route) span.updateName(`${ctx.method} ${route}`);
    span.setAttributes({
      'http.request.method': ctx.method,
      'http.response.status_code': ctx.status,
      'switchyard.request_id': String(ctx.state.requestId ?? ''),
      ...(route ? { 'http.route': route } : {}),
    });
    if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}
