/**
 * The README's "Pix: a pix-capable connector, and settling a test payment", run as written (bash + curl + node)
 * against the test stack after the walkthrough it continues: the hosted checkout then offers pix, a pix paid there
 * is pending, and the README's settle commands make it authorized and complete the checkout.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { api } from '../helpers/http';
import { rows } from '../helpers/db';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { openSession, publicHeaders } from '../helpers/vault';
import { waitForTransaction } from '../helpers/transactions';

const README = path.join(__dirname, '..', '..', 'README.md');

/** The sh blocks under a README heading, in order. */
function shBlocks(heading: string): string[] {
  const readme = fs.readFileSync(README, 'utf8');
  const start = readme.indexOf(heading);
  if (start < 0) throw new Error(`README: no "${heading}"`);
  const next = readme.indexOf('\n### ', start + heading.length);
  const section = readme.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
}

describe('README walkthrough: a pix-capable setup, and a test pix settled at the sandbox', function () {
  this.timeout(90_000);

  it('offers pix on the hosted checkout, and the settle commands make the pending pix authorized', async () => {
    const tenant = await createTenant();
    const [walkthrough] = shBlocks('### Pay on the hosted checkout, from curl');
    const [setup, settle] = shBlocks('### Pix: a pix-capable connector, and settling a test payment');
    expect(setup, 'the pix setup block').to.be.a('string');
    expect(settle, 'the settle block').to.be.a('string');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-readme-pix-'));
    const bash = (script: string) =>
      promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: dir,
        env: { ...process.env, API: stack().url, SANDBOX: stack().sandboxUrl },
      });
    try {
      fs.mkdirSync(path.join(dir, '.data'));
      fs.writeFileSync(path.join(dir, '.data', 'test-credentials.json'), JSON.stringify(tenant));
      const { stdout } = await bash(`${walkthrough}\n${setup}`);
      const url = stdout.trim().split('\n').pop()!;
      const match = new RegExp(`^${stack().url}/checkout/(cks_[0-9A-Za-z]+)#key=(pk_live_\\S+)$`).exec(url);
      expect(match, stdout).to.not.equal(null);
      const [, checkoutId, publicKey] = match!;

      const browser = await openSession(tenant, { checkoutSessionId: checkoutId });
      const view = await api.get('/sessions/checkout', { headers: publicHeaders(publicKey, browser.sessionId) });
      expect(view.body.paymentMethods, view.text).to.include({ pix: true });
      const paid = await api.post(`/sessions/${browser.sessionId}/checkout/confirm`, {
        headers: publicHeaders(publicKey),
        body: { paymentMethod: 'pix' },
      });
      expect(paid.body, paid.text).to.include({ outcome: 'pending', paymentMethod: 'pix', amount: 4990 });
      const [pending] = (
        await api.get('/transactions', {
          key: tenant.merchant_secret_key,
          query: { payment_method: 'pix', status: 'pending' },
        })
      ).body.data;
      expect(pending, 'the pending pix').to.not.equal(undefined);

      // The settle block needs only the credentials file and the addresses (a new shell, as a reader would have).
      await bash(settle.replace(/^/, `${walkthrough.split('\npost() {')[0]}\n`));
      const settled = await waitForTransaction(tenant, pending.id, (tx) => tx.status === 'authorized', 30_000);
      expect(settled).to.include({ status: 'authorized', amount_captured: 4990 });
      const [checkout] = await rows('select status from checkout_sessions where id = ?', [checkoutId]);
      expect(checkout.status).to.equal('completed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
