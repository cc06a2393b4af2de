/**
 * Budgets counted by client address refuse only what matches nothing. Many clients can share one address (CGNAT,
 * an office NAT, and every client at once behind a proxy that is not in TRUSTED_PROXIES), so a client guessing API
 * keys or sending refused provider webhooks is slowed at its address, but a request carrying a valid key, or a
 * delivery carrying the connector's real token and signature, from that same address is answered as usual.
 */
import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { loadConfig } from '../../domain/platform/config';
import { startApi, type RunningApi } from '../../api/server';
import { generateApiKey } from '../../domain/api-keys/api-keys.service';
import { REFUSED_WEBHOOKS_PER_ADDRESS } from '../../api/http/refusal-budgets';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { publicHeaders } from '../helpers/vault';
import { cascade, type CascadeConnector } from '../helpers/transactions';
import { NEW_PASSWORD, PASSWORD, createMerchantUser } from '../helpers/dashboard';
import { tokenIn, waitForMail } from '../helpers/mail';

const UNKNOWN_KEYS = 30;
const SIGN_IN_WINDOW_MS = 600_000;

/** Sign-in and reset counts live in fixed windows: start well inside one so a test's attempts share it. */
async function insideSignInWindow(): Promise<void> {
  const into = Date.now() % SIGN_IN_WINDOW_MS;
  if (into > SIGN_IN_WINDOW_MS - 30_000) await new Promise((r) => setTimeout(r, SIGN_IN_WINDOW_MS - into + 50));
}

describe('Budgets by client address refuse only what matches nothing', () => {
  let limited: RunningApi;
  before(async () => {
    // Behind a trusted loopback proxy, so each request can come from the address the test names.
    const config = loadConfig({
      ...stack().env,
      UNKNOWN_API_KEYS_PER_IP: String(UNKNOWN_KEYS),
      TRUSTED_PROXIES: '127.0.0.0/8,::1',
    });
    limited = await startApi(config, 0);
  });
  after(() => limited.stop());

  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const listCustomers = (key: string, ip: string) =>
    api.get('/customers', { baseUrl: limited.url, key, headers: from(ip) });
  const createSession = (publicKey: string, ip: string) =>
    api.post('/sessions', { baseUrl: limited.url, headers: { ...publicHeaders(publicKey), ...from(ip) }, body: {} });

  async function spendUnknownKeys(ip: string): Promise<void> {
    for (let i = 0; i < UNKNOWN_KEYS; i += 1) {
      const guess =
        i % 2 === 0
          ? await listCustomers(generateApiKey('secret', 'merchant'), ip)
          : await createSession(generateApiKey('public', 'merchant'), ip);
      expectError(guess, 401, 'authentication_error');
    }
  }

  it(`a valid secret key is answered after ${UNKNOWN_KEYS} unknown keys from its address`, async () => {
    const tenant = await createTenant();
    await spendUnknownKeys('203.0.113.90');
    // First use in this API process (read from the database), then from its cache.
    for (let i = 0; i < 2; i += 1) {
      const answered = await listCustomers(tenant.merchant_secret_key, '203.0.113.90');
      expect(answered.status, answered.text).to.equal(200);
    }
  });

  it(`a valid public key is answered after ${UNKNOWN_KEYS} unknown keys from its address`, async () => {
    const tenant = await createTenant();
    await spendUnknownKeys('203.0.113.91');
    for (let i = 0; i < 2; i += 1) {
      const answered = await createSession(tenant.merchant_public_key, '203.0.113.91');
      expect(answered.status, answered.text).to.equal(201);
    }
  });

  it('unknown keys past the budget are still refused', async () => {
    await spendUnknownKeys('203.0.113.92');
    const repeated = generateApiKey('secret', 'merchant');
    for (const key of [generateApiKey('secret', 'merchant'), repeated, repeated]) {
      const refused = await listCustomers(key, '203.0.113.92');
      expectError(refused, 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
      expect(refused.body.error.message).to.match(/unknown API keys/);
    }
    expectError(
      await createSession(generateApiKey('public', 'merchant'), '203.0.113.92'),
      429,
      'rate_limit_error',
      'RATE_LIMIT_EXCEEDED',
    );
    // Another address has its own budget.
    expectError(await listCustomers(repeated, '203.0.113.93'), 401, 'authentication_error');
  });

  describe('provider webhooks', () => {
    const post = async (connectorId: string, token: string, ip: string, body = '{}', headers = {}) => {
      const res = await fetch(`${limited.url}/api/v1/webhooks/inbound/${connectorId}?token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...from(ip), ...headers },
        body,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const tokenOf = (connector: CascadeConnector) => new URL(connector.webhookUrl).searchParams.get('token') ?? '';

    /** A provider_a event of a type Switchyard does not handle (200 ignored), signed with `secret`. */
    const delivery = (connector: CascadeConnector, ip: string, secret = connector.webhookSecret) => {
      const id = `evt_${randomUUID().replace(/-/g, '')}`;
      const body = JSON.stringify({ id, type: 'account.updated', created: Math.floor(Date.now() / 1000), data: {} });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
      return post(connector.id, tokenOf(connector), ip, body, {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': `v1,${signature}`,
      });
    };
    const forgedSecret = `whsec_${Buffer.from('not the connector secret').toString('base64')}`;

    it(`a provider webhook with the right token is answered after ${REFUSED_WEBHOOKS_PER_ADDRESS} refused deliveries from its address`, async function () {
      this.timeout(60_000);
      const tenant = await createTenant();
      const [connector] = await cascade(tenant, ['provider_a']);
      const answers: number[] = [];
      for (let i = 0; i < REFUSED_WEBHOOKS_PER_ADDRESS; i += 1) {
        // Unknown connectors, wrong tokens and bad signatures (with the right token) all spend the budget.
        const refused =
          i % 3 === 0
            ? await post(`conn_${randomUUID().slice(0, 8)}`, 'x', '198.18.30.1')
            : i % 3 === 1
              ? await post(connector.id, `wrong${i}`, '198.18.30.1')
              : await delivery(connector, '198.18.30.1', forgedSecret);
        answers.push(refused.status);
      }
      expect(
        answers.every((status) => status === 401),
        answers.join(','),
      ).to.equal(true);
      expect((await post(connector.id, 'wrong', '198.18.30.1')).status).to.equal(429);
      expect((await delivery(connector, '198.18.30.1', forgedSecret)).status).to.equal(429);
      for (let i = 0; i < 2; i += 1) {
        const real = await delivery(connector, '198.18.30.1');
        expect(real.status, JSON.stringify(real.body)).to.equal(200);
      }
    });
  });

  describe('Dashboard sign-in', () => {
    let signInLimited: RunningApi;
    const PER_IP = 4;
    before(async () => {
      const config = loadConfig({
        ...stack().env,
        LOGIN_ATTEMPTS_PER_IP: String(PER_IP),
        TRUSTED_PROXIES: '127.0.0.0/8,::1',
      });
      signInLimited = await startApi({ ...config, env: 'production' }, 0);
    });
    after(() => signInLimited.stop());

    it("successful sign-ins do not spend their address's budget: only failed ones do", async function () {
      this.timeout(60_000);
      await insideSignInWindow();
      const tenant = await createTenant();
      const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
      const signIn = (password: string) =>
        api.post('/auth/merchant/login', {
          baseUrl: signInLimited.url,
          headers: from('203.0.113.94'),
          body: { email: user.email, password },
        });
      // A whole office behind one address signs in (here: one user, more often than the budget).
      for (let i = 0; i < PER_IP + 1; i += 1) {
        const answered = await signIn(PASSWORD);
        expect(answered.status, answered.text).to.equal(200);
      }
      // Failures still spend it, and past it the address waits.
      for (let i = 0; i < PER_IP; i += 1) expectError(await signIn(`Wrong-password-${i}`), 401);
      expectError(await signIn(`Wrong-password-${PER_IP}`), 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
    });
  });

  describe('password reset', () => {
    let resetLimited: RunningApi;
    const PER_IP = 3;
    before(async () => {
      const config = loadConfig({
        ...stack().env,
        RESET_PASSWORD_PER_IP: String(PER_IP),
        TRUSTED_PROXIES: '127.0.0.0/8,::1',
      });
      resetLimited = await startApi({ ...config, env: 'production' }, 0);
    });
    after(() => resetLimited.stop());

    it(`a valid reset link is answered after ${PER_IP} refused ones from its address`, async function () {
      this.timeout(60_000);
      const tenant = await createTenant();
      const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
      const asked = await api.post('/auth/merchant/forgot-password', { body: { email: user.email } });
      expect(asked.status, asked.text).to.equal(202);
      const token = tokenIn((await waitForMail(user.email))[0]);
      const reset = (presented: string) =>
        api.post('/auth/reset-password', {
          baseUrl: resetLimited.url,
          headers: from('203.0.113.95'),
          body: { token: presented, new_password: NEW_PASSWORD },
        });
      await insideSignInWindow();
      const guess = () => randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '');
      for (let i = 0; i < PER_IP; i += 1) expectError(await reset(guess()), 401, 'authentication_error');
      expectError(await reset(guess()), 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
      const answered = await reset(token);
      expect(answered.status, answered.text).to.equal(200);
    });
  });
});
