/**
 * docker-compose.yml is safe as shipped. Only its TLS-terminating proxy (Caddy) publishes ports; everything else,
 * the API included, is reachable only inside the compose network. The network's subnet and the proxy's address are
 * pinned, so the API's TRUSTED_PROXIES names exactly the proxy: X-Forwarded-For is believed from it and from nobody
 * else, and every client keeps its own per-IP budget. The Temporal UI (no authentication) is reached through the
 * proxy on the host's loopback only. The API and the worker connect as the runtime role (no DDL); a one-shot
 * `migrate` service applies migrations as the owner role before the API starts.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { BlockList } from 'node:net';

// mocha's own YAML parser (a dependency of the test runner), so the test reads the file as Compose does.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require('js-yaml') as { load(text: string): unknown };

type Port = string | { published?: string | number; host_ip?: string };

interface Service {
  ports?: Port[];
  profiles?: string[];
  command?: string[] | string;
  environment?: Record<string, unknown>;
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { ipv4_address?: string } | null>;
  volumes?: string[];
}

const ROOT = path.resolve(__dirname, '../..');
const compose = yaml.load(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
  networks?: Record<string, { ipam?: { config?: { subnet?: string; ip_range?: string }[] } }>;
};
const { services } = compose;

/** The host address a port mapping binds; a mapping without one binds every interface. */
function hostIpOf(port: Port): string {
  if (typeof port !== 'string') return port.host_ip ?? '0.0.0.0';
  const parts = port.split('/')[0].split(':');
  return parts.length === 3 ? parts[0] : '0.0.0.0';
}

/** YAML merge keys (`<<: *app-environment`), whether or not the parser already applied them. */
function environmentOf(name: string): Record<string, string> {
  const merged = (map: Record<string, unknown>): Record<string, unknown> => {
    const { '<<': base, ...own } = map;
    const bases = ([] as unknown[]).concat(base ?? []) as Record<string, unknown>[];
    return Object.assign({}, ...bases.map(merged), own) as Record<string, unknown>;
  };
  return Object.fromEntries(
    Object.entries(merged(services[name].environment ?? {})).map(([key, value]) => [key, String(value)]),
  );
}

/** The role a postgres:// URL (with ${…} placeholders) connects as. */
const roleOf = (url: string) => /^postgres:\/\/([^:@/]+)[:@]/.exec(url)?.[1];

function inSubnet(address: string, cidr: string): boolean {
  const [network, prefix] = cidr.split('/');
  const list = new BlockList();
  list.addSubnet(network, Number(prefix), 'ipv4');
  return list.check(address, 'ipv4');
}

describe('docker-compose.yml: the proxy is the only way in', () => {
  it('only the proxy (caddy) publishes ports; the API is not published at all', () => {
    const publishing = Object.entries(services)
      .filter(([, service]) => (service.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(publishing).to.deep.equal(['caddy']);
    expect(services.api.ports).to.equal(undefined);
  });

  it('the proxy publishes HTTP and HTTPS to the world, and the Temporal UI on the host loopback only', () => {
    const ports = services.caddy.ports ?? [];
    const world = ports.filter((port) => hostIpOf(port) === '0.0.0.0').map(String);
    expect(world).to.have.members(['80:80', '443:443', '443:443/udp']);
    expect(ports.filter((port) => hostIpOf(port) !== '0.0.0.0').map(String)).to.deep.equal([
      '127.0.0.1:8233:8233',
      '127.0.0.1:16686:16686',
    ]);
    expect(services.caddy.volumes).to.include('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
  });

  it('pins the network subnet and the proxy address outside the range handed to other containers', () => {
    const pool = compose.networks?.default?.ipam?.config?.[0];
    expect(pool?.subnet, 'networks.default.ipam.config[0].subnet').to.match(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    expect(pool?.ip_range, 'networks.default.ipam.config[0].ip_range').to.match(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    const address = services.caddy.networks?.default?.ipv4_address as string;
    expect(address, 'caddy.networks.default.ipv4_address').to.be.a('string');
    expect(inSubnet(address, pool!.subnet!)).to.equal(true);
    expect(inSubnet(address, pool!.ip_range!), 'a dynamically assigned container could take it').to.equal(false);
  });

  it("the API's and the worker's TRUSTED_PROXIES is exactly the proxy's pinned address", () => {
    const address = services.caddy.networks?.default?.ipv4_address;
    expect(environmentOf('api').TRUSTED_PROXIES).to.equal(address);
    expect(environmentOf('worker').TRUSTED_PROXIES).to.equal(address);
  });

  it('publishes the Temporal UI and the sandbox on no port of their own; the sandbox runs only in test mode', () => {
    expect(services['temporal-ui'].ports).to.equal(undefined);
    expect(services.sandbox.ports).to.equal(undefined);
    expect(services.sandbox.profiles).to.deep.equal(['test-mode']);
    const profiled = Object.entries(services).filter(([, service]) => service.profiles);
    expect(profiled.map(([name]) => name)).to.deep.equal(['sandbox', 'jaeger']);
  });
});

describe('docker-compose.yml: the app runs without DDL rights', () => {
  it('the API and the worker connect as the runtime role, never the owner', () => {
    expect(roleOf(environmentOf('api').DATABASE_URL)).to.equal('switchyard_app');
    expect(roleOf(environmentOf('worker').DATABASE_URL)).to.equal('switchyard_app');
    expect(environmentOf('api')).not.to.have.property('MIGRATION_DATABASE_URL');
    expect(environmentOf('worker')).not.to.have.property('MIGRATION_DATABASE_URL');
  });

  it('a one-shot migrate service applies migrations as the owner role, and the API starts only after it succeeded', () => {
    const migrate = services.migrate;
    expect(migrate.command).to.deep.equal(['npm', 'run', 'migrate']);
    expect(roleOf(environmentOf('migrate').MIGRATION_DATABASE_URL)).to.equal('switchyard');
    expect(services.api.depends_on?.migrate).to.deep.equal({ condition: 'service_completed_successfully' });
    expect(JSON.stringify(services.api.command)).not.to.contain('migrate');
  });
});

describe('docker-compose.yml: the tracing profile', () => {
  it('runs Jaeger only under the tracing profile, with the configuration npm start uses, publishing no port', () => {
    const jaeger = services.jaeger;
    expect(jaeger, 'a jaeger service').to.exist;
    expect(jaeger.profiles).to.deep.equal(['tracing']);
    expect(jaeger.ports).to.equal(undefined);
    expect(jaeger.volumes).to.include('./deploy/jaeger/config.yaml:/etc/jaeger/config.yaml:ro');
    expect(jaeger.command).to.deep.equal(['--config', '/etc/jaeger/config.yaml']);
    // Its receivers and UI listen on the container's network, where the API, the worker and Caddy reach them.
    expect(environmentOf('jaeger').JAEGER_LISTEN_HOST).to.equal('0.0.0.0');
  });

  it('points the API and the worker at an OTLP endpoint only when one is given (traces are off by default)', () => {
    for (const name of ['api', 'worker']) {
      expect(environmentOf(name).OTEL_EXPORTER_OTLP_ENDPOINT, name).to.equal('${OTEL_EXPORTER_OTLP_ENDPOINT:-}');
    }
    const header = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(header).to.contain('COMPOSE_PROFILES=tracing OTEL_EXPORTER_OTLP_ENDPOINT=http://jaeger:4318');
  });
});
