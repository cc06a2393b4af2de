/**
 * Webhook test fixtures: a real HTTP receiver on 127.0.0.1, an independent Standard Webhooks verifier written
 * from the spec (https://www.standardwebhooks.com — not our signer), and helpers to create configurations and
 * record events the way producers do.
 */
import { expect } from 'chai';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordEvent, type EventType } from '../../domain/events/events.outbox';
import type { EventRecord } from '../../db/entities';
import { api } from './http';
import { stack } from './stack';
import type { Tenant } from './factories';

export interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  url: (path?: string) => string;
  requests: Received[];
  /** How each path answers; the default is 200 "ok". `count` is 1 for the first request to that path. */
  respond(path: string, reply: (request: Received, count: number) => Reply | Promise<Reply>): void;
  on(path: string): Received[];
  waitFor(predicate: (requests: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: Received[] = [];
  const replies = new Map<string, (request: Received, count: number) => Reply | Promise<Reply>>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void answer());
    const answer = async () => {
      const received: Received = {
        path: req.url ?? '/',
        method: req.method ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      const count = requests.filter((r) => r.path === received.path).length;
      const reply: Reply = await (replies.get(received.path) ?? ((): Reply => ({ status: 200, body: 'ok' })))(
        received,
        count,
      );
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body ?? '');
    };
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests,
    respond: (path, reply) => void replies.set(path, reply),
    on: (path) => requests.filter((r) => r.path === path),
    async waitFor(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(requests)) {
        if (Date.now() > deadline)
          throw new Error(
            `receiver: condition not met within ${timeoutMs} ms (${requests.length} requests: ${requests.map((r) => r.path).join(', ')})`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return requests;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Standard Webhooks verification, from the spec: the key is base64(secret without "whsec_"); the signed content
 * is "<webhook-id>.<webhook-timestamp>.<body>"; webhook-signature holds space-separated "v1,<base64 HMAC-SHA256>"
 * entries of which one must match; the timestamp must be within the tolerance. Returns whether it verifies.
 */
export function verifyStandardWebhook(
  secret: string,
  headers: http.IncomingHttpHeaders,
  body: string,
  toleranceSeconds = 300,
): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatureHeader = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatureHeader !== 'string') return false;
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const key = Buffer.from(secret.split('_').slice(1).join('_'), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatureHeader.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export const configsPath = (merchantId: string) => `/merchants/${merchantId}/webhook-configs`;

export const CONFIG_KEYS = [
  'id',
  'merchant_id',
  'url',
  'description',
  'event_filter',
  'is_active',
  'created_at',
  'updated_at',
  'last_triggered_at',
];

/** POST a configuration with the merchant key; returns the 201 body (with its secret). */
export async function createConfig(tenant: Tenant, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await api.post(configsPath(tenant.merchant_id), { key: tenant.merchant_secret_key, body });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

/**
 * Records an event the way a producer does: recordEvent inside a transaction. `fannedOut: true` marks it
 * fanned out in the same transaction, so the stack's own worker leaves it alone (workflow tests drive the
 * delivery themselves).
 */
export async function recordTestEvent(
  tenant: Pick<Tenant, 'organization_id' | 'merchant_id'>,
  type: EventType,
  object: Record<string, unknown> = { id: 'tx_test', status: 'authorized' },
  options: { fannedOut?: boolean } = {},
): Promise<EventRecord> {
  return stack()
    .orm.em.fork()
    .transactional(async (em) => {
      const event = await recordEvent(em, {
        organizationId: tenant.organization_id,
        merchantId: tenant.merchant_id,
        livemode: true,
        type,
        object,
      });
      if (options.fannedOut) await em.execute('update events set fanned_out_at = now() where id = ?', [event.id]);
      return event;
    });
}

export async function deliveryRows(where: string, params: unknown[]): Promise<Record<string, any>[]> {
  return stack()
    .orm.em.fork()
    .execute(`select * from webhook_deliveries where ${where} order by created_at, attempt_number`, params);
}

export async function waitUntil<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export { historyText } from './history-text';
