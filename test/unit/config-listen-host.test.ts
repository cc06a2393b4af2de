/**
 * The API listens on loopback outside production: a development API (SSRF guard off, plain-http webhooks allowed)
 * is not reachable from the network unless HOST says so. Production (and its container) listens on every
 * interface, behind the TLS-terminating proxy.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ConfigError, listenHost, loadConfig } from '../../domain/platform/config';

const base = {
  DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

describe('HOST: the address the API listens on', () => {
  it('defaults to 127.0.0.1 for local and test', () => {
    expect(loadConfig({ ...base, APP_ENV: 'local' }).host).to.equal('127.0.0.1');
    expect(loadConfig({ ...base, APP_ENV: 'test' }).host).to.equal('127.0.0.1');
  });

  it('defaults to every interface (0.0.0.0) in production', () => {
    expect(listenHost({}, 'production')).to.equal('0.0.0.0');
  });

  it('takes HOST when set (an IPv4 or IPv6 address, or localhost), and refuses anything else', () => {
    expect(loadConfig({ ...base, APP_ENV: 'local', HOST: '0.0.0.0' }).host).to.equal('0.0.0.0');
    expect(listenHost({ HOST: '::1' }, 'production')).to.equal('::1');
    expect(listenHost({ HOST: 'localhost' }, 'local')).to.equal('localhost');
    expect(() => listenHost({ HOST: 'evil.example' }, 'local')).to.throw(ConfigError, /HOST/);
  });
});
