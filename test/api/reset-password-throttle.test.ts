/**
 * POST /auth/reset-password is cheap to refuse: a token that is unknown, used or expired is refused
 * before the new password is hashed (argon2id: tens of ms and 19 MiB each), and attempts are throttled per client
 * address and per presented token (429 RATE_LIMIT_EXCEEDED).
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../domain/platform/config';
import { startApi, type RunningApi } from '../../api/server';
import { hashPassword } from '../../api/modules/auth/passwords.service';
import { api } from '../helpers/http';
import { expectError } from '../helpers/envelope';
import { stack } from '../helpers/stack';

const GUESSES = 8;
const guess = () => randomBytes(32).toString('base64url');

describe('Reset password: cheap to refuse', () => {
  it('refuses an unknown token with 401 before hashing the new password', async function () {
    this.timeout(60_000);
    const reset = (token: string) =>
      api.post('/auth/reset-password', { body: { token, new_password: 'Valid-Password-42' } });
    expectError(await reset(guess()), 401, 'authentication_error', 'INVALID_CREDENTIALS');
    // One argon2id hash per guess would make the guesses cost at least as much as that many hashes.
    let started = performance.now();
    for (let i = 0; i < GUESSES; i += 1) expect((await reset(guess())).status).to.equal(401);
    const guesses = performance.now() - started;
    started = performance.now();
    for (let i = 0; i < GUESSES; i += 1) await hashPassword('Valid-Password-42');
    const hashes = performance.now() - started;
    expect(guesses, `${GUESSES} refused guesses took ${guesses} ms, ${GUESSES} hashes ${hashes} ms`).to.be.below(
      hashes,
    );
  });

  describe('throttles', () => {
    let limited: RunningApi;
    before(async () => {
      const config = loadConfig({
        ...stack().env,
        RESET_PASSWORD_PER_IP: '3',
        RESET_PASSWORD_PER_TOKEN: '2',
        TRUSTED_PROXIES: '127.0.0.0/8,::1',
      });
      limited = await startApi({ ...config, env: 'production' }, 0);
    });
    after(() => limited.stop());
    const reset = (ip: string, token: string) =>
      api.post('/auth/reset-password', {
        baseUrl: limited.url,
        headers: { 'x-forwarded-for': ip },
        body: { token, new_password: 'Valid-Password-42' },
      });
    const randomIp = () => `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

    it('answers 429 to one address past RESET_PASSWORD_PER_IP guesses; another address goes on', async () => {
      const ip = randomIp();
      for (let i = 0; i < 3; i += 1) expect((await reset(ip, guess())).status).to.equal(401);
      expectError(await reset(ip, guess()), 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
      expect((await reset(randomIp(), guess())).status).to.equal(401);
    });

    it('answers 429 to one token past RESET_PASSWORD_PER_TOKEN attempts, whatever the address', async () => {
      const token = guess();
      for (let i = 0; i < 2; i += 1) expect((await reset(randomIp(), token)).status).to.equal(401);
      const refused = await reset(randomIp(), token);
      expectError(refused, 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
      expect(refused.body.error.message).to.match(/reset link/);
    });
  });
});
