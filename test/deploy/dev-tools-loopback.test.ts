/**
 * The development stack's tools listen on loopback only: Mailpit (its inbox holds password-reset and invitation links)
 * and the Temporal dev server with its Web UI (no authentication: it terminates and signals workflows) are started by
 * the same functions `npm start` uses, and every socket listening on their ports is 127.0.0.1, none on another or on
 * every interface (IPv4 or IPv6). Read from /proc/net/tcp{,6}, so the test needs no tool beyond Linux itself.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMailCatcher } from '../../scripts/lib/mailpit';
import { startTemporalDevServer } from '../../scripts/lib/temporal-dev-server';
import { freePort } from '../helpers/ports';

/** The local addresses listening on `port`, e.g. ['127.0.0.1'] or ['0.0.0.0', '::']. */
function listenersOn(port: number): string[] {
  const addresses: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local) continue; // 0A: LISTEN
      const [hex, portHex] = local.split(':');
      if (parseInt(portHex, 16) !== port) continue;
      addresses.push(hex.length === 8 ? ipv4(hex) : hex === '0'.repeat(32) ? '::' : `ipv6:${hex}`);
    }
  }
  return addresses;
}

/** /proc stores IPv4 addresses as little-endian hex. */
const ipv4 = (hex: string) => [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16)).join('.');

describe('The development tools listen on 127.0.0.1 only', function () {
  this.timeout(300_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-dev-tools-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  before(function () {
    if (process.platform !== 'linux') this.skip(); // /proc/net/tcp is Linux's
  });

  it('Mailpit: its SMTP port and its web inbox', async function () {
    const [smtpPort, uiPort] = [await freePort(), await freePort()];
    const mail = await startMailCatcher({ dataDir: path.join(dataDir, 'mail'), smtpPort, uiPort });
    try {
      if (!mail.apiUrl) this.skip(); // no Mailpit binary: mail goes to .eml files and nothing listens
      expect(listenersOn(smtpPort)).to.deep.equal(['127.0.0.1']);
      expect(listenersOn(uiPort)).to.deep.equal(['127.0.0.1']);
    } finally {
      await mail.stop();
    }
  });

  it('the Temporal dev server: its frontend and its Web UI', async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const temporal = await startTemporalDevServer({ dbFile: path.join(dataDir, 'temporal.sqlite'), port, uiPort });
    try {
      expect(listenersOn(port)).to.deep.equal(['127.0.0.1']);
      expect(listenersOn(uiPort)).to.deep.equal(['127.0.0.1']);
    } finally {
      await temporal.stop();
    }
  });
});
