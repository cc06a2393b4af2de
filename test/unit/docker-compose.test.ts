/**
 * Secure defaults of docker-compose.yml: nothing is reachable from other machines directly; the API is published on
 * loopback for the TLS-terminating proxy in front of it (README, Production). The Temporal UI (no
 * authentication: it can cancel workflows and read their payloads) and the sandbox PSP (its control API settles
 * payments and sends signed webhooks) are published on 127.0.0.1 only, and the sandbox runs only in test mode.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';

// mocha's own YAML parser (a dependency of the test runner), so the test reads the file as Compose does.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require('js-yaml') as { load(text: string): unknown };

interface Service {
  ports?: (string | { published?: string | number; host_ip?: string })[];
  profiles?: string[];
}

const compose = yaml.load(fs.readFileSync(path.resolve(__dirname, '../../docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
};

/** The host address a port mapping binds; a mapping without one binds every interface. */
function hostIpOf(port: string | { host_ip?: string }): string {
  if (typeof port !== 'string') return port.host_ip ?? '0.0.0.0';
  const parts = port.split(':');
  return parts.length === 3 ? parts[0] : '0.0.0.0';
}

describe('docker-compose.yml secure defaults', () => {
  it('publishes nothing beyond 127.0.0.1, the API included (a TLS-terminating proxy in front is what clients reach)', () => {
    const exposed = Object.entries(compose.services).flatMap(([name, service]) =>
      (service.ports ?? []).filter((port) => hostIpOf(port) !== '127.0.0.1').map(() => name),
    );
    expect(exposed).to.deep.equal([]);
    expect(compose.services.api.ports?.map(hostIpOf)).to.deep.equal(['127.0.0.1']);
  });

  it('publishes the Temporal UI and the sandbox on 127.0.0.1 only', () => {
    for (const name of ['temporal-ui', 'sandbox']) {
      const ports = compose.services[name].ports ?? [];
      expect(ports, name).to.have.length.greaterThan(0);
      expect(ports.map(hostIpOf), name).to.deep.equal(ports.map(() => '127.0.0.1'));
    }
  });

  it('runs the sandbox only under the test-mode profile', () => {
    expect(compose.services.sandbox.profiles).to.deep.equal(['test-mode']);
    const profiled = Object.entries(compose.services).filter(([, service]) => service.profiles);
    expect(profiled.map(([name]) => name)).to.deep.equal(['sandbox']);
  });
});
