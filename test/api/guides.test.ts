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
      expect(steps).to.have.length(3);
      await shell.run(steps[0]);
      expect((await shell.run(steps[1])).trim()).to.equal('failed');
      expect((await shell.run(steps[2])).trim().split('\n')).to.deep.equal([
        'verified transaction.created',
        'verified transaction.failed',
        'transaction.created success',
        'transaction.failed success',
      ]);
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

  it('going-live.md: the check lists each connector with its mode', async () => {
    shell = await guideShell(await guideTenant());
    const [check] = guideBlocks('going-live.md', 'sh');
    expect((await shell.run(check)).trim()).to.equal('no connector yet');
    await shell.run(guideBlocks('pix.md', 'sh')[0]);
    expect((await shell.run(check)).trim()).to.equal('Sandbox pix: test mode, active');
  });
});
