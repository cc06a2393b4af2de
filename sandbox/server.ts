/**
 * The sandbox PSP: one plain node:http server speaking a distinct provider API under /<slug>/… (provider_a,
 * provider_b, provider_c, provider_d, checkout) plus its control API under /_sandbox/…. Started by `npm start`
 * and by the test stack; `stop()` also drops held (timeout-card) connections and cancels pending webhooks.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { controlRouter } from './control';
import type { SandboxContext } from './engine';
import { HANG, parseBody, readBody, type Reply, type Router } from './http';
import { checkout } from './providers/checkout';
import type { ProviderModule } from './providers/common';
import { providerA } from './providers/provider-a';
import { providerB } from './providers/provider-b';
import { providerC } from './providers/provider-c';
import { providerD } from './providers/provider-d';
import { randomChars, Store, type SandboxProvider } from './store';
import { WebhookDispatcher } from './webhooks';

export interface SandboxOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Delay before each webhook delivery and before asynchronous refunds complete (default 0). */
  webhookDelayMs?: number;
  /** How long the slow test card waits before answering (default 2000). */
  slowMs?: number;
  /** How long a timeout-card request is held before the socket is dropped (default 120 s). */
  hangMs?: number;
  /** Request and webhook lines (method, path, status — never bodies). Silent by default. */
  log?: (line: string) => void;
}

export interface RunningSandbox {
  url: string;
  port: number;
  store: Store;
  stop(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const log = options.log ?? (() => {});
  const timers = new Set<NodeJS.Timeout>();
  let url = '';
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const store = new Store();
  // eslint-disable-next-line prefer-const -- assigned once ctx exists; ctx's closures read it later
  let dispatcher: WebhookDispatcher | undefined;
  const ctx: SandboxContext = {
    store,
    slowMs: options.slowMs ?? 2000,
    webhookDelayMs: options.webhookDelayMs ?? 0,
    baseUrl: () => url,
    emit(partial) {
      const event = {
        ...partial,
        id: `evt_${randomChars(24)}`,
        createdAt: new Date().toISOString(),
        endpoints: 0,
        deliveries: [],
      };
      store.events.push(event);
      dispatcher?.dispatch(event);
      return event;
    },
    later,
    sleep: (ms) => new Promise((resolve) => later(ms, resolve)),
  };
  const modules: Record<SandboxProvider, ProviderModule> = {
    provider_a: providerA(ctx),
    provider_b: providerB(ctx),
    provider_c: providerC(ctx),
    provider_d: providerD(ctx),
    checkout: checkout(ctx),
  };
  dispatcher = new WebhookDispatcher(store, modules, later, ctx.webhookDelayMs, log);
  const routers: Record<string, Router> = { _sandbox: controlRouter(ctx, modules) };
  for (const module of Object.values(modules)) routers[module.slug] = module.router;

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      log(`sandbox error on ${req.method} ${pathOf(req)}: ${error.message}`);
      if (!res.headersSent) write(res, { status: 500, body: { error: 'sandbox_error' } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parsed = new URL(req.url ?? '/', 'http://sandbox');
    const [, prefix = '', ...rest] = parsed.pathname.split('/');
    const router = routers[prefix];
    const found = router?.match(req.method ?? 'GET', `/${rest.join('/')}`);
    const rawBody = await readBody(req);
    if (!found) {
      log(`${req.method} ${parsed.pathname} → 404`);
      return write(res, {
        status: 404,
        body: { error: 'not_found', message: `No route ${req.method} ${parsed.pathname}` },
      });
    }
    const result = await found.handler({
      method: req.method ?? 'GET',
      path: `/${rest.join('/')}`,
      query: parsed.searchParams,
      headers: req.headers,
      rawBody,
      body: parseBody(rawBody, req.headers['content-type']),
      params: found.params,
    });
    if (result === HANG) {
      log(`${req.method} ${parsed.pathname} → (held: timeout scenario)`);
      later(options.hangMs ?? 120_000, () => res.destroy());
      return;
    }
    log(`${req.method} ${parsed.pathname} → ${result.status}`);
    write(res, result);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return {
    url,
    port,
    store,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function write(res: ServerResponse, reply: Reply): void {
  const headers = { ...reply.headers };
  let body = '';
  if (typeof reply.body === 'string') body = reply.body;
  else if (reply.body !== undefined) {
    body = JSON.stringify(reply.body);
    headers['content-type'] ??= 'application/json';
  }
  res.writeHead(reply.status, headers);
  res.end(body);
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0];
}
