/**
 * Rule: the test harness's child processes die with it. A harness stopped by a signal takes its Temporal dev server
 * and Mailpit down with it; one killed outright (SIGKILL) leaves them, and the next harness start reaps them from
 * the pid file. Runs a stand-in harness (test/helpers/child-processes-harness.ts) as a real process.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readProc } from '../../scripts/lib/processes';
import { reapStaleChildren } from '../helpers/child-processes';

interface Child {
  pid: number;
  start: number;
}

const alive = ({ pid }: Child) => !['Z', undefined].includes(readProc(pid, 'stat')?.split(') ')[1]?.[0]);
const commandOf = ({ pid }: Child) => readProc(pid, 'cmdline')?.split('\0').join(' ') ?? '';

async function startHarness(): Promise<{ harness: ChildProcess; children: Child[] }> {
  const harness = spawn(process.execPath, ['--import', 'tsx', require.resolve('../helpers/child-processes-harness')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  for await (const chunk of harness.stdout) {
    output += (chunk as Buffer).toString();
    const ready = /^ready (.*)$/m.exec(output);
    if (ready) return { harness, children: JSON.parse(ready[1]) as Child[] };
  }
  throw new Error(`the stand-in harness ended before it was ready: ${output}`);
}

/** Until every child is gone, at most `timeoutMs` (servers take a moment to shut down). */
async function gone(children: Child[], timeoutMs = 20_000): Promise<Child[]> {
  for (const deadline = Date.now() + timeoutMs; children.some(alive) && Date.now() < deadline;)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return children.filter(alive);
}

const servers = (children: Child[]) => {
  const commands = children.map(commandOf);
  return {
    temporal: commands.some((c) => c.includes('start-dev')),
    mailpit: commands.some((c) => c.includes('mailpit')),
  };
};

describe('Rule: the test harness leaves no child process behind', function () {
  this.timeout(120_000);

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`a harness stopped by ${signal} takes its Temporal dev server and Mailpit with it`, async () => {
      const { harness, children } = await startHarness();
      expect(servers(children)).to.deep.equal({ temporal: true, mailpit: true });
      const exited = once(harness, 'exit');
      harness.kill(signal);
      await exited;
      expect((await gone(children)).map(commandOf)).to.deep.equal([]);
    });
  }

  it('a harness killed outright (SIGKILL) leaves them, and the next harness start reaps them', async () => {
    const { harness, children } = await startHarness();
    const exited = once(harness, 'exit');
    harness.kill('SIGKILL');
    await exited;
    const left = children.filter(alive);
    expect(servers(left), 'still running after the SIGKILL').to.deep.equal({ temporal: true, mailpit: true });

    const reaped = await reapStaleChildren();
    expect(reaped).to.include.members(left.map((c) => c.pid));
    expect((await gone(children)).map(commandOf)).to.deep.equal([]);
  });
});
