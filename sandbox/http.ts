/**
 * The sandbox's own tiny HTTP layer (plain node:http, no framework): a path-template router, body parsing
 * (JSON and Stripe-style nested form encoding) and reply helpers. Providers return a Reply; the server writes it.
 */
import type { IncomingMessage } from 'node:http';

export interface SandboxRequest {
  method: string;
  /** Path below the provider prefix, e.g. /v1/payment_intents for /provider_a/v1/payment_intents. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  rawBody: string;
  /** Parsed JSON or form body; {} when empty; null when unparsable. */
  body: Record<string, unknown> | null;
  params: Record<string, string>;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Returned by a handler that must never answer (the timeout test card): the server holds the socket. */
export const HANG = Symbol('hang');
export type HandlerResult = Reply | typeof HANG;
export type Handler = (request: SandboxRequest) => Promise<HandlerResult> | HandlerResult;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: Handler;
}

export class Router {
  private readonly routes: Route[] = [];

  on(method: string, template: string, handler: Handler): this {
    const names: string[] = [];
    const source = template.replace(/:([a-z_]+)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    this.routes.push({ method, pattern: new RegExp(`^${source}/?$`), names, handler });
    return this;
  }

  /** null when no route matches the path; a 405-worthy miss still returns null (providers answer 404). */
  match(method: string, path: string): { handler: Handler; params: Record<string, string> } | null {
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1])));
      return { handler: route.handler, params };
    }
    return null;
  }
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status, body, headers };
}

export function readBody(req: IncomingMessage, limit = 256 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> | null {
  if (raw.trim() === '') return {};
  if ((contentType ?? '').includes('application/x-www-form-urlencoded')) return parseForm(raw);
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Stripe-style nested form fields: a[b][c]=1 → {a: {b: {c: '1'}}}; a[]=1&a[]=2 → {a: ['1', '2']}. */
export function parseForm(raw: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const parts = key.split('[').map((part) => part.replace(/\]$/, ''));
    let node: Record<string, unknown> = out;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      if (last) {
        if (part === '') return;
        node[part] = value;
        return;
      }
      if (parts[i + 1] === '') {
        const list = Array.isArray(node[part]) ? (node[part] as unknown[]) : [];
        list.push(value);
        node[part] = list;
        return;
      }
      if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
      node = node[part] as Record<string, unknown>;
    });
  }
  return out;
}

export function header(request: SandboxRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export function bearer(request: SandboxRequest): string | null {
  const match = /^Bearer\s+(.+)$/i.exec(header(request, 'authorization') ?? '');
  return match ? match[1].trim() : null;
}

export function basic(request: SandboxRequest): { username: string; password: string } | null {
  const match = /^Basic\s+(.+)$/i.exec(header(request, 'authorization') ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Small typed readers for loosely-typed provider bodies. */
export const read = {
  str(value: unknown): string | null {
    return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
  },
  obj(value: unknown): Record<string, unknown> {
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  },
  /** Integers sent as numbers or (form-encoded) digit strings. */
  int(value: unknown): number | null {
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
    return null;
  },
  bool(value: unknown): boolean | null {
    if (typeof value === 'boolean') return value;
    if (value === 'true') return true;
    if (value === 'false') return false;
    return null;
  },
};
