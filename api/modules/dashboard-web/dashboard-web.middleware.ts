/**
 * Serves the merchant Dashboard web app (built from web/dashboard/ into web/dashboard/dist by npm start, the test
 * harness or `npm run build:dashboard`) at /dashboard/: hashed assets under /dashboard/assets/, and index.html
 * for every other path below /dashboard/ so the app's own router decides (deep links and reloads work). api/app.ts
 * mounts it on /dashboard and the paths below.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Context, Next } from 'koa';

const DIST = path.join(__dirname, '..', '..', '..', 'web', 'dashboard', 'dist');

/** Like the hosted checkout page's, with no frames at all: the app calls only this origin's API. */
const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

const ASSET = /^\/dashboard\/assets\/([A-Za-z0-9._-]+\.(?:js|css))$/;

let files: Map<string, Buffer> | undefined;

/** The built files, read once (the build names assets by content hash, so they never change under a name). */
function builtFiles(): Map<string, Buffer> {
  if (!files) {
    const found = new Map<string, Buffer>();
    if (fs.existsSync(path.join(DIST, 'index.html'))) {
      found.set('index.html', fs.readFileSync(path.join(DIST, 'index.html')));
      for (const name of fs.readdirSync(path.join(DIST, 'assets'))) {
        found.set(name, fs.readFileSync(path.join(DIST, 'assets', name)));
      }
    }
    files = found;
  }
  return files;
}

export function dashboardWeb() {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next() as Promise<void>;
    if (ctx.path === '/dashboard') {
      ctx.redirect('/dashboard/');
      return;
    }
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    const asset = ASSET.exec(ctx.path)?.[1];
    if (asset) {
      const body = builtFiles().get(asset);
      if (!body) return next() as Promise<void>;
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.type = TYPES[path.extname(asset)];
      ctx.body = body;
      return;
    }
    const index = builtFiles().get('index.html');
    ctx.set('Content-Security-Policy', DASHBOARD_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = TYPES['.html'];
    if (!index) {
      ctx.status = 503;
      ctx.body = '<!doctype html><title>Dashboard not built</title><p>Run <code>npm run build:dashboard</code>.</p>';
      return;
    }
    ctx.body = index;
  };
}
