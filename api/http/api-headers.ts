/**
 * Every /api/v1 answer (errors included) carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`:
 * token pairs, signing secrets, API keys shown once and customer data must never sit in a browser or proxy cache
 * (RFC 6749 §5.1 for tokens), and JSON must never be sniffed into something a browser runs. Set before the route runs,
 * so the error envelope keeps them.
 */
import type { Context, Next } from 'koa';

export function apiResponseHeaders(prefix: string) {
  return async (ctx: Context, next: Next) => {
    if (ctx.path === prefix || ctx.path.startsWith(`${prefix}/`)) {
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
    }
    await next();
  };
}
