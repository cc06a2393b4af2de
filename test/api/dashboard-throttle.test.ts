/**
 * Sign-in throttling: failed logins per e-mail lock the account for the rest of the window (answered exactly like a
 * wrong password), and every login attempt counts against the client IP (then 429). The per-IP limit runs on an
 * API of its own behind a trusted proxy on loopback (client address from X-Forwarded-For, TRUSTED_PROXIES).
 */
import { expect } from 'chai';
import { loadConfig } from '../../domain/platform/config';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { PASSWORD, createMerchantUser, signIn } from '../helpers/dashboard';

const WINDOW_MS = 600_000;
/** Counts live in fixed windows: start well inside one so a test's attempts share it. */
async function insideWindow(): Promise<void> {
  const into = Date.now() % WINDOW_MS;
  if (into > WINDOW_MS - 30_000) await new Promise((resolve) => setTimeout(resolve, WINDOW_MS - into + 50));
}

describe('Dashboard sign-in throttling', () => {
  it('locks an e-mail after LOGIN_FAILURES_PER_EMAIL failures: the right password then answers like a wrong one', async function () {
    this.timeout(60_000);
    await insideWindow();
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const bystander = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const failures = stack().config.dashboard.loginFailuresPerEmail;
    let wrongMessage = '';
    for (let i = 0; i < failures; i += 1) {
      const wrong = await api.post('/auth/merchant/login', {
        body: { email: user.email, password: 'Wrong-password-1' },
      });
      wrongMessage = expectError(wrong, 401, 'authentication_error', 'INVALID_CREDENTIALS').message as string;
    }
    const locked = await api.post('/auth/merchant/login', { body: { email: user.email, password: PASSWORD } });
    expectError(locked, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    expect(locked.body.error.message).to.equal(wrongMessage);
    // Another account, and the same e-mail at another identity, are not affected.
    await signIn('merchant', bystander);
  });

  describe('per client IP', () => {
    let limited: RunningApi;
    const PER_IP = 4;
    before(async () => {
      const config = loadConfig({
        ...stack().env,
        LOGIN_ATTEMPTS_PER_IP: String(PER_IP),
        TRUSTED_PROXIES: '127.0.0.0/8,::1',
      });
      limited = await startApi({ ...config, env: 'production' }, 0);
    });
    after(() => limited.stop());

    it('answers 429 RATE_LIMIT_EXCEEDED past the IP budget, even with the right password; another IP goes on', async function () {
      this.timeout(60_000);
      await insideWindow();
      const tenant = await createTenant();
      const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
      const from = (ip: string, password: string) =>
        api.post('/auth/merchant/login', {
          baseUrl: limited.url,
          headers: { 'x-forwarded-for': ip },
          body: { email: user.email, password },
        });
      const ip = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
      for (let i = 0; i < PER_IP; i += 1) expectError(await from(ip, `Wrong-password-${i}`), 401);
      const refused = await from(ip, PASSWORD);
      expectError(refused, 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 600);
      expect((await from('198.51.100.23', PASSWORD)).status).to.equal(200);
    });
  });
});
