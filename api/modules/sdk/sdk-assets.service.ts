/**
 * The browser files the API serves outside /api/v1: the SDK, its card-fields frame and the hosted checkout
 * page (api/static/). They are read once at start-up, so the SRI hash published in every browser session is
 * the hash of exactly the bytes served.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const SDK_VERSION = '1.1.0';
export const SDK_PATH = '/sdk/v1/switchyard.js';

const STATIC_DIR = path.join(__dirname, '..', '..', 'static');

export interface StaticAsset {
  body: Buffer;
  contentType: string;
  /** sha384-<base64>, the Subresource Integrity value of body. */
  integrity: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** URL path → file under api/static/. Anything else is not served. */
const FILES: Record<string, string> = {
  [SDK_PATH]: 'sdk/v1/switchyard.js',
  '/sdk/v1/card-frame.html': 'sdk/v1/card-frame.html',
  '/sdk/v1/card-frame.js': 'sdk/v1/card-frame.js',
  '/sdk/v1/card-frame.css': 'sdk/v1/card-frame.css',
  '/checkout/assets/checkout-display.js': 'checkout/checkout-display.js',
  '/checkout/assets/checkout-setup.js': 'checkout/checkout-setup.js',
  '/checkout/assets/checkout.js': 'checkout/checkout.js',
  '/checkout/assets/checkout.css': 'checkout/checkout.css',
};

export const sriOf = (body: Buffer): string => `sha384-${createHash('sha384').update(body).digest('base64')}`;

let cache: Map<string, StaticAsset> | undefined;

export function staticAssets(): Map<string, StaticAsset> {
  if (!cache) {
    cache = new Map(
      Object.entries(FILES).map(([urlPath, file]) => {
        const body = fs.readFileSync(path.join(STATIC_DIR, file));
        return [urlPath, { body, contentType: TYPES[path.extname(file)], integrity: sriOf(body) }];
      }),
    );
  }
  return cache;
}

/** The SRI hash of the SDK file as served at SDK_PATH. */
export const sdkIntegrity = (): string => staticAssets().get(SDK_PATH)!.integrity;
