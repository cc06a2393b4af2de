import { expect } from 'chai';
import { freshPollers, POLLER_FRESH_MS } from '../../api/modules/health/health.service';

const at = (ms: number) => ({ lastAccessTime: { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 } });
const asLong = (ms: number) => ({ lastAccessTime: { seconds: { toNumber: () => Math.floor(ms / 1000) }, nanos: 0 } });

describe('health: which task-queue pollers count as a live worker', () => {
  const now = Date.parse('2026-11-22T12:00:00.000Z');

  it('counts a poller seen within the last 90 s and ignores one Temporal still lists after its worker stopped', () => {
    expect(freshPollers([at(now - 5_000)], now)).to.equal(1);
    expect(freshPollers([at(now - POLLER_FRESH_MS)], now)).to.equal(1);
    expect(freshPollers([at(now - POLLER_FRESH_MS - 1_000)], now)).to.equal(0);
    expect(freshPollers([at(now - 4 * 60_000), at(now - 30_000)], now)).to.equal(1);
  });

  it('reads protobuf Long seconds, and counts a poller the server listed without a timestamp', () => {
    expect(freshPollers([asLong(now - 10_000)], now)).to.equal(1);
    expect(freshPollers([asLong(now - 10 * 60_000)], now)).to.equal(0);
    expect(freshPollers([{}, { lastAccessTime: null }], now)).to.equal(2);
    expect(freshPollers([], now)).to.equal(0);
  });
});
