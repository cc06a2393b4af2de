/**
 * Koa middleware for what browsers load outside /api/v1 and the JSON envelope: the SDK and its card frame
 * (/sdk/v1/…), the hosted checkout page (/checkout/:checkout_session_id) — and CORS for the public-key API
 * endpoints, so a merchant page may also call them directly (no cookies are involved: `*` is safe).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Context, Next } from 'koa';
import { staticAssets } from './sdk-assets.service';

const CHECKOUT_PAGE = /^\/checkout\/(cks_[0-9A-Za-z]{1,60})$/;

/** The card frame is embedded by any merchant page; it talks only to this origin. */
const FRAME_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  'frame-ancestors *',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The hosted page embeds the card frame (same origin) and is never framed itself. */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

let checkoutHtml: Buffer | undefined;
const checkoutPage = () =>
  (checkoutHtml ??= fs.readFileSync(path.join(__dirname, '..', '..', 'static', 'checkout', 'checkout.html')));

function isPublicKeyApi(prefix: string, ctx: Context): boolean {
  return (
    ctx.path === `${prefix}/tokens` || ctx.path === `${prefix}/sessions` || ctx.path.startsWith(`${prefix}/sessions/`)
  );
}

export function browserAssets(apiPrefix: string) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (isPublicKeyApi(apiPrefix, ctx)) {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Access-Control-Expose-Headers', 'X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset');
      if (ctx.method === 'OPTIONS') {
        ctx.set('Access-Control-Allow-Methods', 'GET, POST');
        ctx.set('Access-Control-Allow-Headers', 'Content-Type, X-Public-Key, X-Session-Id');
        ctx.set('Access-Control-Max-Age', '600');
        ctx.status = 204;
        return;
      }
      return next() as Promise<void>;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next() as Promise<void>;

    const asset = staticAssets().get(ctx.path);
    const page = CHECKOUT_PAGE.test(ctx.path);
    if (!asset && !page) return next() as Promise<void>;

    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (page) {
      ctx.set('Content-Security-Policy', PAGE_CSP);
      ctx.set('X-Frame-Options', 'DENY');
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = checkoutPage();
      return;
    }
    if (ctx.path.endsWith('.html')) ctx.set('Content-Security-Policy', FRAME_CSP);
    // Scripts are loaded cross-origin with integrity= and crossorigin=anonymous, which needs CORS.
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = asset!.contentType;
    ctx.body = asset!.body;
  };
}
