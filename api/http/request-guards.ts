/**
 * Two guards every /api/v1 request passes: the answer's no-store and nosniff headers, set before the route runs, and
 * the bound on the parsed body's JSON nesting, checked before anything walks it.
 */
import type { Context, Next } from 'koa';
import { errors } from '../../domain/platform/errors';

/**
 * Every /api/v1 answer (errors included) carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`:
 * token pairs, signing secrets, API keys shown once and customer data must never sit in a browser or proxy cache
 * (RFC 6749 §5.1 for tokens), and JSON must never be sniffed into something a browser runs. Set before the route runs,
 * so the error envelope keeps them.
 */
export function apiResponseHeaders(prefix: string) {
  // Passes next()'s promise on rather than awaiting it: one promise less per request.
  return (ctx: Context, next: Next) => {
    if (ctx.path === prefix || ctx.path.startsWith(`${prefix}/`)) {
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
    }
    return next();
  };
}

/**
 * JSON nesting is bounded right after the body is parsed, before anything walks it. JSON.parse itself copes with a
 * 120 000-deep array (it fits in the 256 KiB body limit), but every recursive walk after it (schema checks, the
 * idempotency fingerprint, JSON.stringify) throws RangeError: a 500 and an error log per request, reachable with a
 * public key through `metadata`. No documented body nests anywhere near MAX_JSON_DEPTH; metadata values are the
 * merchant's own and get the same bound. The walk here is iterative, so it cannot overflow itself.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether `value` has objects or arrays nested more than `max` levels deep (the top-level body is level 1). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(current)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}

/** 400 JSON_TOO_DEEP for a parsed body nested deeper than MAX_JSON_DEPTH. */
export function requireBoundedJsonDepth(ctx: Context): void {
  if (nestsDeeperThan((ctx.request as { body?: unknown }).body, MAX_JSON_DEPTH)) {
    throw errors.badRequest(
      'JSON_TOO_DEEP',
      `The request body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
}
