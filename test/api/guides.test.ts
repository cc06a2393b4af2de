/**
 * The guides of docs/guides/ whose steps are all API calls, run as written: their shell steps in one bash process
 * against the test stack (the guides' setup block first, with this tenant's keys in its placeholders).
 */
import { expect } from 'chai';
import { createTenant } from '../helpers/factories';
import { guideBlocks, guideShell, type GuideShell } from '../helpers/guides';

describe('Guides made of API calls, run as written', function () {
  this.timeout(120_000);
  let shell: GuideShell | undefined;
  afterEach(() => shell?.close());

  it('pix.md: a pix charge is pending with instructions, and settling it at the sandbox authorizes it', async () => {
    shell = await guideShell(await createTenant());
    const steps = guideBlocks('pix.md', 'sh');
    expect(steps).to.have.length(3);
    expect((await shell.run(steps[0])).trim()).to.equal('pix');
    expect((await shell.run(steps[1])).trim()).to.equal('pending');
    expect((await shell.run(steps[2])).trim()).to.equal('authorized');
  });
});
