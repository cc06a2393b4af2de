/**
 * Secure defaults: APP_ENV has no default. Unset, it used to mean `local`, which turned the SSRF guard and the
 * https-only webhook URL rule off on any deployment that forgot to set it.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../domain/platform/config';

const REPO_ROOT = path.resolve(__dirname, '../..');
const base = {
  DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

/** Runs an entry point the way `npm run api` / `npm run worker` do, with exactly `env` (plus PATH). */
function runEntry(entry: string, env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', entry], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('APP_ENV is required (no implicit local)', () => {
  it('loadConfig refuses to start without APP_ENV, or with an empty one', () => {
    expect(() => loadConfig(base)).to.throw(ConfigError, /APP_ENV is required/);
    expect(() => loadConfig({ ...base, APP_ENV: '' })).to.throw(ConfigError, /APP_ENV is required/);
    expect(() => loadConfig({ ...base, APP_ENV: 'staging' })).to.throw(ConfigError, /local, test or production/);
    expect(loadConfig({ ...base, APP_ENV: 'local' }).env).to.equal('local');
  });

  for (const entry of ['api/server.ts', 'worker/main.ts']) {
    it(`${entry} started on its own exits with the APP_ENV error before connecting to anything`, function () {
      this.timeout(60_000);
      const result = runEntry(entry, base);
      expect(result.status, result.stderr).to.equal(1);
      expect(result.stderr).to.match(/APP_ENV is required/);
    });
  }
});

describe('Production sends secret-bearing links over https only', () => {
  // Present (checked for presence before the https rule; their formats are checked after it).
  const production = {
    ...base,
    APP_ENV: 'production',
    VAULT_PRIVATE_KEY: 'present',
    CARD_FINGERPRINT_KEY: 'present',
    DASHBOARD_JWT_KEY: 'present',
    SMTP_URL: 'smtp://mail.example:25',
  };

  it('refuses an http PUBLIC_BASE_URL (webhook_url tokens) and an http DASHBOARD_URL (reset and invitation links)', () => {
    const https = 'https://pay.example';
    expect(() => loadConfig({ ...production, PUBLIC_BASE_URL: 'http://pay.example' })).to.throw(
      ConfigError,
      /PUBLIC_BASE_URL must be an https URL/,
    );
    expect(() => loadConfig({ ...production, PUBLIC_BASE_URL: https, DASHBOARD_URL: 'http://dash.example' })).to.throw(
      ConfigError,
      /DASHBOARD_URL must be an https URL/,
    );
    // DASHBOARD_URL defaults to PUBLIC_BASE_URL: an https public URL passes the rule (the next check is the keys').
    expect(() => loadConfig({ ...production, PUBLIC_BASE_URL: https }))
      .to.throw(ConfigError)
      .that.does.not.match(/https URL/);
  });
});
