/**
 * Public-key (browser) endpoints: a public key ships in every buyer's page, so besides its own budget each
 * client IP and each browser session gets a smaller one (checked first: a request refused there does not spend
 * the key's budget), and a browser session whose cards keep being declined is throttled (card testing).
 * The limits run on an API of their own with small budgets; the suite's stack sets them out of reach.
 */
import { expect } from 'chai';
import { loadConfig } from '../../domain/platform/config';
import { hashSecret } from '../../domain/platform/crypto';
import { startApi, type RunningApi } from '../../api/server';
import { MAX_DECLINES_PER_SESSION } from '../../api/http/browser-limits';
import { api, type ApiResponse } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { rows } from '../helpers/connectors';
import { stack } from '../helpers/stack';
import {
  CARDS,
  cardConnector,
  createCustomer,
  mintToken,
  openSession,
  publicHeaders,
  type SessionData,
  withEnrolmentToken,
} from '../helpers/vault';

const PER_IP = 8; // the session test makes 8 requests from one IP
const PER_SESSION = 3;

function expectLimited(res: ApiResponse, limit: number, message: RegExp): void {
  expectError(res, 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
  expect(res.body.error.message).to.match(message);
  expect(Number(res.headers.get('retry-after'))).to.be.within(1, 60);
  expect(res.headers.get('ratelimit-limit')).to.equal(String(limit));
  expect(res.headers.get('ratelimit-remaining')).to.equal('0');
  expect(res.headers.get('ratelimit-policy')).to.equal(`${limit};w=60`);
}

async function keyBudgetSpent(publicKey: string): Promise<number> {
  const [row] = await rows(
    `select coalesce(sum(c.count), 0)::int as n from rate_limit_counters c
       join api_keys k on c.bucket = k.id where k.secret_hash = ?`,
    [hashSecret(publicKey)],
  );
  return row.n;
}

describe('Public-key endpoints: per-IP and per-browser-session limits besides the per-key one', () => {
  let limited: RunningApi;
  let tenant: Tenant;
  // Counts live in fixed 60 s windows: start right after a boundary so each test's requests share one.
  async function atWindowStart(): Promise<void> {
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindow + 50));
  }
  before(async () => {
    const config = loadConfig({
      ...stack().env,
      PUBLIC_RATE_LIMIT_PER_IP: String(PER_IP),
      PUBLIC_RATE_LIMIT_PER_SESSION: String(PER_SESSION),
      // Behind a proxy on loopback: the client address comes from X-Forwarded-For, so two buyers can be told apart.
      TRUSTED_PROXIES: '127.0.0.0/8,::1',
    });
    limited = await startApi({ ...config, env: 'production' }, 0);
  });
  after(() => limited.stop());
  beforeEach(async () => {
    tenant = await createTenant();
  });

  const from = (ip: string, extra: Record<string, string> = {}) => ({
    baseUrl: limited.url,
    headers: { ...publicHeaders(tenant.merchant_public_key), 'x-forwarded-for': ip, ...extra },
  });

  it('answers 429 RATE_LIMIT_EXCEEDED to one IP past its share, without spending the key budget; another IP goes on', async function () {
    this.timeout(90_000);
    await atWindowStart();
    for (let i = 0; i < PER_IP; i += 1)
      expect((await api.post('/sessions', { ...from('203.0.113.7'), body: {} })).status).to.equal(201);
    expectLimited(await api.post('/sessions', { ...from('203.0.113.7'), body: {} }), PER_IP, /IP address/);
    expect(await keyBudgetSpent(tenant.merchant_public_key)).to.equal(PER_IP);
    const other = await api.post('/sessions', { ...from('198.51.100.2'), body: {} });
    expect(other.status, other.text).to.equal(201);
    expect(Number(other.headers.get('ratelimit-remaining'))).to.equal(PER_IP - 1);
  });

  it('answers 429 to one browser session past its share; another session from the same IP goes on', async function () {
    this.timeout(90_000);
    await atWindowStart();
    const open = async () => (await api.post('/sessions', { ...from('203.0.113.9'), body: {} })).body as SessionData;
    const [first, second] = [await open(), await open()];
    for (let i = 0; i < PER_SESSION; i += 1)
      expect((await api.post(`/sessions/${first.sessionId}/refresh`, from('203.0.113.9'))).status).to.equal(200);
    const refused = await api.post(`/sessions/${first.sessionId}/refresh`, from('203.0.113.9'));
    expectLimited(refused, PER_SESSION, /browser session/);
    // The X-Session-Id header names the session too (POST /tokens, GET /sessions/checkout).
    expectLimited(
      await api.get('/sessions/checkout', from('203.0.113.9', { 'x-session-id': first.sessionId })),
      PER_SESSION,
      /browser session/,
    );
    expect((await api.post(`/sessions/${second.sessionId}/refresh`, from('203.0.113.9'))).status).to.equal(200);
  });
});

describe('Public-key endpoints: repeated declines from one browser session are throttled (card testing)', () => {
  it(`refuses enrolment with 429 after ${MAX_DECLINES_PER_SESSION} declined cards in a session, before any provider call`, async function () {
    this.timeout(90_000);
    const tenant = await createTenant();
    const connector = await cardConnector(tenant, 'provider_a');
    const profile = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Cards', is_active: true, payment_method: '*', default_merchant_connector_id: connector.id },
    });
    expect(profile.status, profile.text).to.equal(201);
    const customerId = await createCustomer(tenant);
    const enrolToken = async (session: SessionData, tokenId: string) =>
      api.post(`/sessions/${session.sessionId}/payment-instruments`, {
        headers: publicHeaders(tenant.merchant_public_key),
        body: await withEnrolmentToken(tenant, { tokenId, customerId, currency: 'USD' }),
      });
    const enrol = async (session: SessionData, card: typeof CARDS.visa | typeof CARDS.stolen) =>
      enrolToken(session, (await mintToken(tenant, session, card)).tokenId);

    const session = await openSession(tenant);
    for (let i = 0; i < MAX_DECLINES_PER_SESSION; i += 1) {
      const declined = await enrol(session, CARDS.stolen);
      expect(declined.status, declined.text).to.equal(201);
      expect(declined.body).to.include({ verified: false, status: 'declined' });
    }
    const good = (await mintToken(tenant, session, CARDS.visa)).tokenId;
    const throttled = await enrolToken(session, good);
    expectError(throttled, 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
    expect(throttled.body.error.message).to.match(/declined cards/);
    expect(Number(throttled.headers.get('retry-after'))).to.be.within(1, 600);
    // Refused before verification: any verification attempt would have used the token up.
    expect((await rows('select status from card_tokens where id = ?', [good]))[0].status).to.equal('active');

    // Another session (same buyer IP, under its own decline budget) still enrols a good card.
    const fresh = await enrol(await openSession(tenant), CARDS.visa);
    expect(fresh.status, fresh.text).to.equal(201);
    expect(fresh.body).to.include({ verified: true });
  });
});
