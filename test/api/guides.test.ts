/**
 * The guides of docs/guides/ whose steps are all API calls (and save-a-card.md's API-only step), run as written:
 * their shell steps in one bash process against the test stack (the guides' setup block first, with this tenant's
 * keys in its placeholders).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { guideBlocks, guideShell, guideTenant, type GuideShell } from '../helpers/guides';
import { freePort } from '../helpers/ports';

describe('Guides made of API calls, run as written', function () {
  this.timeout(120_000);
  let shell: GuideShell | undefined;
  afterEach(() => shell?.close());

  it('pix.md: a pix charge is pending with instructions, and settling it at the sandbox authorizes it', async () => {
    shell = await guideShell(await guideTenant());
    const steps = guideBlocks('pix.md', 'sh');
    expect(steps).to.have.length(3);
    expect((await shell.run(steps[0])).trim()).to.equal('pix');
    expect((await shell.run(steps[1])).trim()).to.equal('pending');
    expect((await shell.run(steps[2])).trim()).to.equal('authorized');
  });

  it('webhooks.md: the receiver as written verifies both deliveries of a declined pix, and both are recorded as success', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-guide-'));
    try {
      fs.writeFileSync(path.join(folder, 'receiver.js'), guideBlocks('webhooks.md', 'js')[0]);
      shell = await guideShell(await guideTenant(), { RECEIVER_PORT: String(await freePort()) }, folder);
      const steps = guideBlocks('webhooks.md', 'sh');
      expect(steps).to.have.length(4);
      await shell.run(steps[0]);
      expect((await shell.run(steps[1])).trim()).to.equal('failed');
      expect((await shell.run(steps[2])).trim().split('\n')).to.deep.equal([
        'verified transaction.created',
        'verified transaction.failed',
        'transaction.created success',
        'transaction.failed success',
      ]);
      expect((await shell.run(steps[3])).trim(), 'the endpoint is deleted once its receiver is gone').to.equal('0');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('save-a-card.md: without a page, the test payment method pm_card_visa is saved by API and its charge is authorized', async () => {
    shell = await guideShell(await guideTenant());
    const steps = guideBlocks('save-a-card.md', 'sh');
    expect(steps).to.have.length(6);
    expect(await shell.run(steps[0])).to.match(/^cust_/);
    expect((await shell.run(steps[5])).trim()).to.equal('authorized');
  });

  it("the setup block's field prints an error answer's envelope to stderr and fails, instead of printing undefined", async () => {
    shell = await guideShell(await guideTenant());
    const failure = await shell.run('call GET /customers/cust_missing | field id').then(
      (printed) => `no failure; printed ${printed}`,
      (error: Error) => error.message,
    );
    expect(failure).to.match(/^error: \{"type":"\w+","code":"[A-Z_]+"/m);
    expect(failure).not.to.contain('undefined');
  });

  it('all the guides pasted in order on one merchant, as docs/guides/README.md says: each pays through the connector it has just created', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-guide-'));
    const activeConnector = async (method: string) =>
      (
        await shell!.run(`call GET /merchants/$MERCHANT/routing-profiles |
          node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).data
            .find((p) => p.is_active && p.payment_method === "${method}").default_merchant_connector_id'`)
      ).trim();
    try {
      fs.writeFileSync(path.join(folder, 'receiver.js'), guideBlocks('webhooks.md', 'js')[0]);
      shell = await guideShell(await guideTenant(), { RECEIVER_PORT: String(await freePort()) }, folder);
      // The browser steps (paying the checkouts) are the e2e guide tests'; every API step runs here.
      const accept = guideBlocks('accept-a-payment.md', 'sh');
      expect((await shell.run(accept[0])).trim()).to.equal('true');
      expect(await shell.run(accept[1])).to.match(/^ofr_/);
      expect(await shell.run(accept[2])).to.match(/\/checkout\/cks_\w+#key=pk_/);

      const save = guideBlocks('save-a-card.md', 'sh');
      expect(await shell.run(save[0])).to.match(/^cust_/);
      expect(await activeConnector('*')).to.equal(await shell.value('CONNECTOR'));
      expect((await shell.run(save[5])).trim()).to.equal('authorized');

      const pix = guideBlocks('pix.md', 'sh');
      expect((await shell.run(pix[0])).trim()).to.equal('pix');
      expect((await shell.run(pix[1])).trim()).to.equal('pending');
      expect((await shell.run(pix[2])).trim()).to.equal('authorized');

      expect(await shell.run(guideBlocks('subscriptions-test-clock.md', 'sh')[0])).to.match(/^clk_/);
      expect(await activeConnector('*')).to.equal(await shell.value('CONNECTOR'));

      const webhooks = guideBlocks('webhooks.md', 'sh');
      await shell.run(webhooks[0]);
      expect((await shell.run(webhooks[1])).trim()).to.equal('failed');
      expect(await activeConnector('pix')).to.equal(await shell.value('PIX_CONNECTOR'));
      expect(await shell.run(webhooks[2])).to.contain('verified transaction.failed');
      expect((await shell.run(webhooks[3])).trim()).to.equal('0');

      const [check] = guideBlocks('going-live.md', 'sh');
      expect((await shell.run(check)).trim().split('\n')).to.have.members([
        'Sandbox: test mode, active',
        'Sandbox: test mode, active',
        'Sandbox pix: test mode, active',
        'Sandbox: test mode, active',
        'Sandbox pix: test mode, active',
      ]);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('going-live.md: the check lists each connector with its mode', async () => {
    shell = await guideShell(await guideTenant());
    const [check] = guideBlocks('going-live.md', 'sh');
    expect((await shell.run(check)).trim()).to.equal('no connector yet');
    await shell.run(guideBlocks('pix.md', 'sh')[0]);
    expect((await shell.run(check)).trim()).to.equal('Sandbox pix: test mode, active');
  });
});
