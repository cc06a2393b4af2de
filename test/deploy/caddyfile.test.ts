/**
 * deploy/Caddyfile, the proxy docker-compose.yml ships, is a valid Caddy configuration (`caddy validate`, with the
 * binary of the same minor as the compose image), and it does what the deployment relies on: the public site proxies
 * to the API and trusts no proxy in front of itself (so Caddy replaces a client's X-Forwarded-For with the address it
 * sees), and the Temporal UI answers only requests naming localhost or 127.0.0.1 (no DNS rebinding).
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { resolveCaddy } from '../../scripts/lib/caddy';

const CADDYFILE = path.resolve(__dirname, '../../deploy/Caddyfile');

describe('deploy/Caddyfile', () => {
  let caddy: string;
  let env: NodeJS.ProcessEnv;
  before(async function () {
    this.timeout(600_000);
    try {
      caddy = await resolveCaddy();
    } catch (error) {
      console.log(`      skipped: the caddy binary cannot be obtained (${(error as Error).message})`);
      this.skip();
    }
    // Caddy writes its storage under XDG dirs; keep them out of the home directory.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-caddy-'));
    env = {
      ...process.env,
      XDG_DATA_HOME: home,
      XDG_CONFIG_HOME: home,
      PUBLIC_BASE_URL: 'https://payments.example.com',
    };
  });
  const caddyRun = (...args: string[]) =>
    promisify(execFile)(caddy, [...args, '--config', CADDYFILE, '--adapter', 'caddyfile'], { env });

  it('passes caddy validate with the environment compose gives it', async function () {
    this.timeout(60_000);
    const { stdout, stderr } = await caddyRun('validate');
    expect(stdout + stderr).to.contain('Valid configuration');
  });

  it('proxies PUBLIC_BASE_URL to the API, trusting no proxy in front of itself', async () => {
    const servers = await adaptedServers();
    const site = Object.values(servers).find((server) => server.listen.includes(':443'));
    expect(JSON.stringify(site?.routes)).to.contain('payments.example.com').and.to.contain('"dial":"api:3000"');
    expect(site).not.to.have.property('trusted_proxies');
  });

  it('serves the Temporal UI only to requests naming localhost or 127.0.0.1', async () => {
    const servers = await adaptedServers();
    const ui = Object.values(servers).find((server) => server.listen.includes(':8233'));
    const routes = JSON.stringify(ui?.routes);
    expect(routes).to.contain('"host":["localhost","127.0.0.1"]').and.to.contain('"dial":"temporal-ui:8080"');
    expect(routes).to.contain('"status_code":403');
  });

  it("serves Jaeger's UI (the tracing profile) only to requests naming localhost or 127.0.0.1", async () => {
    const servers = await adaptedServers();
    const ui = Object.values(servers).find((server) => server.listen.includes(':16686'));
    const routes = JSON.stringify(ui?.routes);
    expect(routes).to.contain('"host":["localhost","127.0.0.1"]').and.to.contain('"dial":"jaeger:16686"');
    expect(routes).to.contain('"status_code":403');
  });

  async function adaptedServers(): Promise<Record<string, { listen: string[]; routes: unknown[] }>> {
    const { stdout } = await caddyRun('adapt');
    return (JSON.parse(stdout) as { apps: { http: { servers: Record<string, { listen: string[]; routes: [] }> } } })
      .apps.http.servers;
  }
});
