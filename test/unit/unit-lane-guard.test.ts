/**
 * Rule: the unit lane needs no server, binary or network, on a fresh clone too. Its setup (test/helpers/unit-lane.ts)
 * marks the process so that everything which builds, fetches or starts PostgreSQL, Temporal, Mailpit or stripe-mock
 * refuses at once, and it refuses connections beyond loopback and name lookups, failing the test that made them.
 */
import { expect } from 'chai';
import dns from 'node:dns';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { resolveTemporalCli, resolveTimeSkippingTestServer } from '../../scripts/lib/temporal-binaries';
import { startTemporalForTests } from '../../scripts/lib/temporal-dev-server';
import { startTemporalOnPostgres } from '../../scripts/lib/temporal-postgres-server';
import { resolveMailpit, startMailCatcher } from '../../scripts/lib/mailpit';
import { resolveStripeMock } from '../../scripts/lib/stripe-mock';
import { resolveCaddy } from '../../scripts/lib/caddy';
import { resolveSchemathesis } from '../../scripts/lib/schemathesis';
import { startEmbeddedPostgres } from '../../scripts/lib/postgres';
import { takeRefusals } from '../helpers/unit-lane';

const dataDir = path.join(os.tmpdir(), 'switchyard-unit-lane-never-created');

const STARTERS: Record<string, () => unknown> = {
  'resolving the Temporal CLI': resolveTemporalCli,
  "resolving Temporal's time-skipping test server": resolveTimeSkippingTestServer,
  'resolving Mailpit': resolveMailpit,
  'resolving stripe-mock': resolveStripeMock,
  'resolving caddy': resolveCaddy,
  'resolving Schemathesis': resolveSchemathesis,
  'starting PostgreSQL': () => startEmbeddedPostgres({ dataDir, port: 1 }),
  'starting a Temporal dev server': startTemporalForTests,
  'starting Temporal on PostgreSQL': startTemporalOnPostgres,
  'starting Mailpit': () => startMailCatcher({ dataDir }),
};

async function refusal(start: () => unknown): Promise<string> {
  try {
    await start();
  } catch (error) {
    return String(error);
  }
  return 'not refused';
}

describe('Rule: the unit lane starts no server and builds or fetches no binary', () => {
  for (const [what, start] of Object.entries(STARTERS)) {
    it(`${what} fails at once, naming the unit lane`, async () => {
      expect(await refusal(start)).to.match(/refused: the unit lane/);
    });
  }
});

describe('Rule: the unit lane has no network beyond loopback', () => {
  afterEach(() => takeRefusals());

  it('a connection to a non-loopback address throws and is recorded against the test', () => {
    expect(() => net.connect({ host: '192.0.2.1', port: 9 })).to.throw(/unit lane has no network/);
    expect(() => net.connect(9, '2001:db8::1')).to.throw(/unit lane has no network/);
    expect(takeRefusals()).to.deep.equal(['a connection to 192.0.2.1', 'a connection to 2001:db8::1']);
  });

  it('a name lookup other than localhost throws and is recorded against the test', async () => {
    expect(() => dns.lookup('example.com', () => undefined)).to.throw(/unit lane has no network/);
    expect(await refusal(() => dns.promises.lookup('example.com'))).to.match(/unit lane has no network/);
    expect(await refusal(() => fetch('http://example.com/'))).to.match(/fetch failed/);
    expect(takeRefusals()).to.deep.equal(Array(3).fill('a lookup of example.com'));
  });

  it('loopback stays open: a local server answers', async () => {
    const server = http.createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      expect(await (await fetch(`http://localhost:${port}/`)).text()).to.equal('ok');
      expect(takeRefusals()).to.deep.equal([]);
    } finally {
      server.close();
    }
  });
});
