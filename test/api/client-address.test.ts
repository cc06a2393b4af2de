/**
 * Client addresses: X-Forwarded-For is believed only from configured proxies (TRUSTED_PROXIES, none by default), read
 * from the right, and IPv6 clients share one per-IP budget per /64. Otherwise one client could send a different
 * forwarded address with each request and never meet a per-IP limit (sign-in, public-key budgets, card testing).
 * In production, forwarded headers from a private peer that is not a trusted proxy mean a proxy TRUSTED_PROXIES
 * forgot: such requests are refused (503 UNTRUSTED_PROXY) with an operator log line, rather than every client
 * silently sharing the proxy's address.
 */
import { expect } from 'chai';
import { loadConfig, ConfigError } from '../../domain/platform/config';
import { createLogger } from '../../domain/platform/logger';
import { startApi, type RunningApi } from '../../api/server';
import { addressBucket, clientAddress } from '../../api/http/client-address';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { rows } from '../helpers/db';
import { publicHeaders } from '../helpers/vault';

const PER_IP = 4;

describe('Client address resolution (pure)', () => {
  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(clientAddress('198.51.100.9', '203.0.113.1', [])).to.equal('198.51.100.9');
    expect(clientAddress('198.51.100.9', '203.0.113.1', ['10.0.0.0/8'])).to.equal('198.51.100.9');
  });

  it('takes the right-most hop that is not a trusted proxy, whatever the client wrote to its left', () => {
    const trusted = ['10.0.0.0/8', 'fd00::/8'];
    expect(clientAddress('10.0.0.2', 'forged, 1.2.3.4, 203.0.113.7, 10.0.0.5', trusted)).to.equal('203.0.113.7');
    expect(clientAddress('::ffff:10.0.0.2', '2001:db8::1', trusted)).to.equal('2001:db8::1');
    expect(clientAddress('fd00::1', '10.1.1.1', trusted)).to.equal('10.1.1.1');
  });

  it('stops at the last trusted hop when a proxy forwarded something that is not an address', () => {
    expect(clientAddress('10.0.0.2', '203.0.113.7, garbage', ['10.0.0.0/8'])).to.equal('10.0.0.2');
  });

  it('buckets IPv6 addresses by /64 and IPv4 by address', () => {
    expect(addressBucket('2001:db8:1:2::a')).to.equal('2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002:ffff:1:2:3')).to.equal('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(addressBucket('::1')).to.equal('0:0:0:0::/64');
    expect(addressBucket('203.0.113.7')).to.equal('203.0.113.7');
  });

  it('refuses to start with a TRUSTED_PROXIES entry that is not a CIDR', () => {
    expect(() => loadConfig({ ...stack().env, TRUSTED_PROXIES: '10.0.0.0/8,nonsense' })).to.throw(ConfigError);
    expect(loadConfig({ ...stack().env, TRUSTED_PROXIES: ' 10.0.0.0/8 , ::1 ' }).trustedProxies).to.deep.equal([
      '10.0.0.0/8',
      '::1',
    ]);
  });
});

describe('Client addresses on a production API', () => {
  let direct: RunningApi;
  let proxied: RunningApi;
  let tenant: Tenant;
  const directLog: string[] = [];
  const limits = { PUBLIC_RATE_LIMIT_PER_IP: String(PER_IP), LOGIN_ATTEMPTS_PER_IP: String(PER_IP) };
  before(async () => {
    // No TRUSTED_PROXIES, and the test's connections come from loopback: a proxy nobody listed.
    direct = await startApi({ ...loadConfig({ ...stack().env, ...limits }), env: 'production' }, 0, {
      logger: createLogger('info', { write: (line: string) => void directLog.push(line) }),
    });
    // Behind a proxy on loopback (the test's own connections come from there).
    proxied = await startApi(
      { ...loadConfig({ ...stack().env, ...limits, TRUSTED_PROXIES: '127.0.0.0/8,::1' }), env: 'production' },
      0,
    );
  });
  after(async () => {
    await direct.stop();
    await proxied.stop();
  });
  beforeEach(async () => {
    tenant = await createTenant();
  });
  // Counts live in fixed 60 s windows: start right after a boundary so a test's requests share one.
  async function atWindowStart(): Promise<void> {
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindow + 50));
  }
  const openSession = (baseUrl: string, forwardedFor: string) =>
    api.post('/sessions', {
      baseUrl,
      headers: { ...publicHeaders(tenant.merchant_public_key), 'x-forwarded-for': forwardedFor },
      body: {},
    });

  it('refuses X-Forwarded-For or Forwarded from an untrusted private peer: 503 UNTRUSTED_PROXY, nothing done', async () => {
    directLog.length = 0;
    const refused = await openSession(direct.url, '198.51.100.1');
    expectError(refused, 503, 'internal_server_error', 'UNTRUSTED_PROXY');
    const forwarded = await api.post('/sessions', {
      baseUrl: direct.url,
      headers: { ...publicHeaders(tenant.merchant_public_key), forwarded: 'for=198.51.100.2' },
      body: {},
    });
    expectError(forwarded, 503, 'internal_server_error', 'UNTRUSTED_PROXY');
    const sessions = await rows('select id from browser_sessions where merchant_id = ?', [tenant.merchant_id]);
    expect(sessions).to.deep.equal([]);
    // One operator line per peer (not one per request), naming the peer and the setting to fix.
    const fatal = directLog.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.level === 60);
    expect(fatal).to.have.length(1);
    expect(fatal[0]).to.include({ code: 'UNTRUSTED_PROXY', peer: '127.0.0.1' });
    expect(String(fatal[0].msg)).to.contain('TRUSTED_PROXIES');
  });

  it('serves the same peer when it sends no forwarded headers (a health probe, a client on the private network)', async () => {
    const res = await api.post('/sessions', {
      baseUrl: direct.url,
      headers: publicHeaders(tenant.merchant_public_key),
      body: {},
    });
    expect(res.status, res.text).to.equal(201);
  });

  it('outside production, forwarded headers from an untrusted peer are ignored, not refused', async () => {
    const res = await api.post('/sessions', {
      headers: { ...publicHeaders(tenant.merchant_public_key), 'x-forwarded-for': '198.51.100.3' },
      body: {},
    });
    expect(res.status, res.text).to.equal(201);
  });

  it('behind a trusted proxy, the right-most untrusted hop is the client: left entries the client wrote change nothing', async function () {
    this.timeout(90_000);
    await atWindowStart();
    for (let i = 0; i < PER_IP; i += 1) {
      const res = await openSession(proxied.url, `10.9.9.${i}, 203.0.113.50`);
      expect(res.status, res.text).to.equal(201);
    }
    expectError(await openSession(proxied.url, '10.9.9.99, 203.0.113.50'), 429, 'rate_limit_error');
    // Another client behind the same proxy has its own budget.
    expect((await openSession(proxied.url, '203.0.113.51')).status).to.equal(201);
  });

  it('IPv6 clients share one per-IP budget per /64', async function () {
    this.timeout(90_000);
    await atWindowStart();
    for (let i = 0; i < PER_IP; i += 1) {
      const res = await openSession(proxied.url, `2001:db8:5:6::${(i + 1).toString(16)}`);
      expect(res.status, res.text).to.equal(201);
    }
    expectError(await openSession(proxied.url, '2001:db8:5:6:ffff::1'), 429, 'rate_limit_error');
    expect((await openSession(proxied.url, '2001:db8:5:7::1')).status).to.equal(201);
  });
});
