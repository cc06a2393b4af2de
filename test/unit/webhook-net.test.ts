/** The SSRF guard and the HTTP client details of webhook delivery (activities/webhooks). */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isBlockedAddress, isLoopbackHost } from '../../domain/webhooks/webhooks.outbound';
import {
  guardedLookup,
  parseRetryAfter,
  postJson,
  truncateUtf8,
  webhookDispatcher,
} from '../../activities/webhooks/http-post';

const options = { timeoutMs: 2_000, allowPrivateTargets: false, maxReadBytes: 64 * 1024, keepBytes: 1024 };

describe('isBlockedAddress', () => {
  it('refuses loopback, private, link-local, metadata, CGNAT, multicast and reserved addresses, v4 and v6', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '198.18.0.1',
      '::1',
      '::',
      'fd00::1',
      'fd00:ec2::254',
      'fc00::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      '::ffff:a00:1',
      '64:ff9b::a9fe:a9fe',
      '2002:a00:1::1',
    ])
      expect(isBlockedAddress(address), address).to.equal(true);
  });

  it('refuses IPv4 embedded in IPv4-compatible (::a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d) IPv6', () => {
    for (const address of ['::127.0.0.1', '::7f00:1', '::169.254.169.254', '::ffff:0:127.0.0.1', '::ffff:0:a00:1'])
      expect(isBlockedAddress(address), address).to.equal(true);
  });

  it('allows public addresses', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001::200e',
      '::ffff:8.8.8.8',
    ]) {
      expect(isBlockedAddress(address), address).to.equal(false);
    }
  });

  it('knows which hosts are loopback (the only plain-http targets of local/test mode)', () => {
    for (const host of ['localhost', 'api.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '[::ffff:127.0.0.1]'])
      expect(isLoopbackHost(host), host).to.equal(true);
    for (const host of ['example.com', '10.0.0.1', '[fd00::1]', 'localhost.example.com'])
      expect(isLoopbackHost(host), host).to.equal(false);
  });
});

describe('guardedLookup', () => {
  const resolveTo = (...addresses: string[]) =>
    guardedLookup((_host, _opts, callback) =>
      callback(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      ),
    );
  const lookup = (fn: ReturnType<typeof guardedLookup>, all: boolean) =>
    new Promise<{ error: (Error & { code?: string }) | null; result: unknown }>((resolve) =>
      fn('hooks.test', { all }, (error, address, family) =>
        resolve({ error, result: all ? address : { address, family } }),
      ),
    );

  it('refuses a name that resolves to a private address, even alongside a public one', async () => {
    for (const fn of [resolveTo('10.0.0.7'), resolveTo('93.184.216.34', '169.254.169.254'), resolveTo('fd00::5')]) {
      const { error } = await lookup(fn, false);
      expect(error?.code).to.equal('EBLOCKEDADDRESS');
    }
  });

  it('passes public addresses through in both callback forms', async () => {
    const fn = resolveTo('93.184.216.34', '2606:2800:220:1::1');
    expect((await lookup(fn, false)).result).to.deep.equal({ address: '93.184.216.34', family: 4 });
    expect((await lookup(fn, true)).result).to.deep.equal([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
  });
});

describe('postJson', () => {
  it('does not even connect to a blocked literal address or localhost when private targets are not allowed', async () => {
    for (const url of [
      'http://127.0.0.1:1/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest',
      'https://localhost/x',
    ]) {
      const result = await postJson(url, '{}', {}, options);
      expect(result, url).to.include({ status: null, error: 'blocked_address' });
    }
  });

  it('reports timeouts, refused connections and unknown hosts as errors, and caps the body read', async () => {
    let slow = false;
    const server = http
      .createServer((_req, res) => {
        if (slow) return; // never answers
        res.writeHead(500, { 'retry-after': '30' });
        res.end('x'.repeat(200 * 1024));
      })
      .listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const big = await postJson(url, '{}', {}, { ...options, allowPrivateTargets: true });
      expect(big).to.include({ status: 500, retryAfterSeconds: 30, error: null });
      expect(big.body).to.have.length(1024);
      slow = true;
      const timedOut = await postJson(url, '{}', {}, { ...options, allowPrivateTargets: true, timeoutMs: 300 });
      expect(timedOut).to.include({ status: null, error: 'timeout' });
      expect(timedOut.durationMs).to.be.within(250, 2_000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
    expect(await postJson(url, '{}', {}, { ...options, allowPrivateTargets: true })).to.include({
      error: 'connection_error',
    });
    // The resolver answers "no such name" itself: the unit lane makes no lookup.
    const nxdomain = webhookDispatcher({
      allowPrivateTargets: false,
      resolve: (host, _opts, callback) =>
        callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []),
    });
    expect(await postJson('http://no-such-host.invalid/', '{}', {}, options, nxdomain)).to.include({
      error: 'dns_error',
    });
  });
});

describe('postJson connection pool', () => {
  let server: http.Server;
  let connections: number;
  let requests: number;
  beforeEach(async () => {
    connections = 0;
    requests = 0;
    server = http
      .createServer((req, res) => {
        requests += 1;
        req.resume().on('end', () => res.writeHead(200).end('ok'));
      })
      .on('connection', () => (connections += 1))
      .listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
  });
  afterEach(() => {
    server.closeAllConnections();
    server.close();
  });
  const port = () => (server.address() as AddressInfo).port;

  it('keeps the connection to a receiver alive: attempts in a row reuse their connection (keep-alive per origin)', async () => {
    const dispatcher = webhookDispatcher({ allowPrivateTargets: true });
    try {
      for (let i = 0; i < 6; i += 1) {
        const result = await postJson(
          `http://127.0.0.1:${port()}/hook`,
          '{}',
          {},
          { ...options, allowPrivateTargets: true },
          dispatcher,
        );
        expect(result).to.include({ status: 200, body: 'ok', error: null });
      }
      expect(requests).to.equal(6);
      // A fresh connection per attempt would be 6. (The pool may open a second one while the first is still
      // being released right after its response: at most 2.)
      expect(connections).to.be.at.most(2);
    } finally {
      await dispatcher.close();
    }
  });

  it('applies the SSRF guard to the address every pooled connection resolves to', async () => {
    // A public-looking name that resolves to this loopback receiver (DNS rebinding, or a hostile record).
    const dispatcher = webhookDispatcher({
      allowPrivateTargets: false,
      resolve: (_host, _opts, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]),
    });
    try {
      const result = await postJson(`http://hooks.test:${port()}/hook`, '{}', {}, options, dispatcher);
      expect(result).to.include({ status: null, error: 'blocked_address' });
      expect(connections).to.equal(0);
    } finally {
      await dispatcher.close();
    }
  });
});

describe('parseRetryAfter and truncateUtf8', () => {
  it('reads delta-seconds and HTTP-dates; ignores garbage', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(parseRetryAfter('120', now)).to.equal(120);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:05:00 GMT', now)).to.equal(300);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).to.equal(0);
    expect(parseRetryAfter('soon', now)).to.equal(null);
    expect(parseRetryAfter(undefined, now)).to.equal(null);
  });

  it('keeps whole characters within the byte limit and drops NULs', () => {
    const text = truncateUtf8(Buffer.from('ab€€€', 'utf8'), 6);
    expect(text).to.equal('ab€');
    expect(truncateUtf8(Buffer.from('a\u0000b'), 10)).to.equal('ab');
  });
});
