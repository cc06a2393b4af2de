/**
 * The README's "Pay on the hosted checkout, from curl" walkthrough, run as written (bash + curl + node) against
 * the test stack, so the documented calls cannot drift from the API: it must print a hosted-checkout address
 * whose checkout is R$49.90 and payable.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { CARDS, mintToken, openSession, publicHeaders } from '../helpers/vault';

const README = path.join(__dirname, '..', '..', 'README.md');

function walkthroughScript(): string {
  const readme = fs.readFileSync(README, 'utf8');
  const section = readme.slice(readme.indexOf('### Pay on the hosted checkout, from curl'));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('README: no sh block under "Pay on the hosted checkout, from curl"');
  return match[1];
}

describe('README walkthrough: a checkout session from curl, paid on its hosted page', function () {
  this.timeout(60_000);

  it('prints a hosted-checkout address whose checkout charges R$49.90 and can be paid', async () => {
    const tenant = await createTenant();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-readme-'));
    try {
      fs.mkdirSync(path.join(dir, '.data'));
      fs.writeFileSync(path.join(dir, '.data', 'test-credentials.json'), JSON.stringify(tenant));
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', walkthroughScript()], {
        cwd: dir,
        env: { ...process.env, API: stack().url },
      });
      const url = stdout.trim().split('\n').pop()!;
      const match = new RegExp(`^${stack().url}/checkout/(cks_[0-9A-Za-z]+)#key=(pk_live_\\S+)$`).exec(url);
      expect(match, stdout).to.not.equal(null);
      const [, checkoutId, publicKey] = match!;
      expect(publicKey).to.equal(tenant.merchant_public_key);

      const page = await fetch(url.split('#')[0]);
      expect(page.status).to.equal(200);
      const browser = await openSession(tenant, { checkoutSessionId: checkoutId });
      const view = await api.get('/sessions/checkout', {
        headers: publicHeaders(publicKey, browser.sessionId),
      });
      expect(view.body.summary).to.include({ currency: 'BRL', dueToday: 4990 });
      expect(view.body.summary.lines[0]).to.include({ productName: 'Ebook', offerName: 'Ebook' });
      await mintToken(tenant, browser, CARDS.visa, { purpose: 'one_time' });
      const paid = await api.post(`/sessions/${browser.sessionId}/checkout/confirm`, {
        headers: publicHeaders(publicKey),
        body: {},
      });
      expect(paid.body, paid.text).to.include({ outcome: 'succeeded', amount: 4990, checkoutStatus: 'completed' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
