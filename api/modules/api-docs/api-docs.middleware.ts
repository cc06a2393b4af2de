/**
 * The rendered API reference at /docs: Redoc's standalone bundle (the `redoc` package, served from this origin, no
 * CDN) reading the integration document (GET /api/v1/openapi/integration.json). The page has no inline script; the
 * CSP allows inline styles only because Redoc's styled-components injects its stylesheet at run time, and a blob:
 * worker for its search index.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Context, Next } from 'koa';

const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  'worker-src blob:',
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const BUNDLE = '/docs/assets/redoc.standalone.js';

let page: Buffer | undefined;
let bundle: Buffer | undefined;
const docsPage = () => (page ??= fs.readFileSync(path.join(__dirname, '..', '..', 'static', 'docs', 'index.html')));
/** Redoc's footer logo is the bundle's one address elsewhere: a data: URI instead, so the page loads nothing off-origin. */
const OFF_ORIGIN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const redocBundle = () =>
  (bundle ??= Buffer.from(
    fs
      .readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8')
      .replace(OFF_ORIGIN_LOGO, 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E'),
  ));

export function apiDocs() {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next() as Promise<void>;
    if (ctx.path === '/docs/') {
      ctx.redirect('/docs');
      return;
    }
    if (ctx.path !== '/docs' && ctx.path !== BUNDLE) return next() as Promise<void>;
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (ctx.path === BUNDLE) {
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = redocBundle();
      return;
    }
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = docsPage();
  };
}
