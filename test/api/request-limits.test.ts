/**
 * Expensive requests are cheap to refuse: JSON nesting is bounded as soon as the body is parsed
 * (400 JSON_TOO_DEEP, never a 500), the HTTP server times out slow headers and caps open connections, and a client
 * sending well-formed API keys that match nothing gets 429 for the next ones.
 */
import { expect } from 'chai';
import net from 'node:net';
import { loadConfig } from '../../domain/platform/config';
import { startApi, type RunningApi } from '../../api/server';
import { generateApiKey } from '../../domain/api-keys/api-keys.service';
import { MAX_JSON_DEPTH } from '../../api/http/schema';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { publicHeaders } from '../helpers/vault';

const nested = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('Request limits', () => {
  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels with 400 JSON_TOO_DEEP, even 100 000 deep in metadata`, async () => {
    const tenant = await createTenant();
    const headers = { ...publicHeaders(tenant.merchant_public_key), 'content-type': 'application/json' };
    const deep = await api.post('/sessions', {
      headers,
      rawBody: `{"metadata":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    });
    expectError(deep, 400, 'bad_request_error', 'JSON_TOO_DEEP');
    // The body is level 1, metadata 2, its value 3.
    const over = await api.post('/sessions', { headers, body: { metadata: { a: nested(MAX_JSON_DEPTH - 1) } } });
    expectError(over, 400, 'bad_request_error', 'JSON_TOO_DEEP');
    const within = await api.post('/sessions', { headers, body: { metadata: { a: nested(MAX_JSON_DEPTH - 2) } } });
    expect(within.status, within.text).to.equal(201);
  });

  describe('the HTTP server', () => {
    let limited: RunningApi;
    before(async () => {
      const config = loadConfig({ ...stack().env, SERVER_HEADERS_TIMEOUT_MS: '500', SERVER_MAX_CONNECTIONS: '2' });
      limited = await startApi(config, 0);
    });
    after(() => limited.stop());
    const port = () => Number(new URL(limited.url).port);
    const connect = () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(port(), '127.0.0.1', () => resolve(socket)).once('error', reject);
      });
    const closed = (socket: net.Socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()));

    it('closes a connection whose headers do not arrive within SERVER_HEADERS_TIMEOUT_MS', async function () {
      this.timeout(10_000);
      const socket = await connect();
      const started = Date.now();
      socket.write('GET /api/v1/health/live HTTP/1.1\r\nHost: x\r\n');
      socket.resume();
      await closed(socket);
      expect(Date.now() - started).to.be.below(5_000);
    });

    it('closes connections beyond SERVER_MAX_CONNECTIONS at once', async function () {
      this.timeout(10_000);
      const held = [await connect(), await connect()];
      await new Promise((resolve) => setTimeout(resolve, 100));
      const extra = await connect();
      extra.resume();
      await closed(extra);
      for (const socket of held) socket.destroy();
    });
  });

  describe('unknown API keys', () => {
    let limited: RunningApi;
    before(async () => {
      const config = loadConfig({ ...stack().env, UNKNOWN_API_KEYS_PER_IP: '3', TRUSTED_PROXIES: '127.0.0.0/8,::1' });
      limited = await startApi(config, 0);
    });
    after(() => limited.stop());
    const list = (key: string, ip: string) =>
      api.get('/customers', { baseUrl: limited.url, key, headers: { 'x-forwarded-for': ip } });

    it('answers 429 to an address past UNKNOWN_API_KEYS_PER_IP misses; another address goes on', async () => {
      const tenant = await createTenant();
      for (let i = 0; i < 3; i += 1) {
        expectError(await list(generateApiKey('secret', 'merchant'), '203.0.113.80'), 401, 'authentication_error');
      }
      const refused = await list(generateApiKey('secret', 'merchant'), '203.0.113.80');
      expectError(refused, 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
      expect(refused.body.error.message).to.match(/unknown API keys/);
      // Only keys that match nothing wait: a real key from the same address is answered.
      expect((await list(tenant.merchant_secret_key, '203.0.113.80')).status).to.equal(200);
      expect((await list(tenant.merchant_secret_key, '203.0.113.81')).status).to.equal(200);
    });
  });
});
