/**
 * Rule: one Ctrl-C of `npm start` (delivered again by npm and tsx) stops everything in reverse order before it
 * exits; a later, second Ctrl-C exits early but still stops the Temporal dev server first.
 */
import { expect } from 'chai';
import { SAME_SIGNAL_MS, Shutdown } from '../../scripts/lib/shutdown';

describe('npm start: Ctrl-C', () => {
  function started(now: () => number) {
    const events: string[] = [];
    let release!: () => void;
    const slowWorker = new Promise<void>((resolve) => (release = resolve));
    const shutdown = new Shutdown((code) => void events.push(`exit ${code}`), now);
    const stop = (name: string, until?: Promise<void>) => async () => {
      await until;
      events.push(`${name} stopped`);
    };
    shutdown.add(stop('database'));
    shutdown.addTemporal(stop('temporal'));
    shutdown.add(stop('jaeger'));
    shutdown.add(stop('worker', slowWorker));
    return { shutdown, events, release };
  }

  it('the same Ctrl-C relayed again while stopping is ignored: every stop runs, Temporal included, then the exit', async () => {
    let clock = 0;
    const { shutdown, events, release } = started(() => clock);
    const first = shutdown.run(0);
    clock += 50; // npm's and tsx's relays of the same Ctrl-C
    await shutdown.run(0);
    await shutdown.run(0);
    expect(events).to.deep.equal([]);
    release();
    await first;
    expect(events).to.deep.equal([
      'worker stopped',
      'jaeger stopped',
      'temporal stopped',
      'database stopped',
      'exit 0',
    ]);
  });

  it('a second Ctrl-C later stops the Temporal dev server before it exits', async () => {
    let clock = 0;
    const { shutdown, events } = started(() => clock);
    void shutdown.run(0); // stuck on the worker
    clock += SAME_SIGNAL_MS + 1;
    await shutdown.run(0);
    expect(events).to.deep.equal(['temporal stopped', 'exit 0']);
  });
});
