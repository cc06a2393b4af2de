/**
 * The CI-safe performance check: not a timed test. Each hot path is measured side by side with a bare
 * Koa hello-world in this same process (short autocannon bursts), and only the ratio between the two is checked,
 * against the ratio recorded in bench/recorded-ratios.json with a generous margin: the test fails when a hot path
 * falls below half of its recorded ratio. A burst that misses is measured once more before the test fails, so a
 * moment of load from elsewhere on the machine does not fail it.
 */
import { expect } from 'chai';
import { startApi, type RunningApi } from '../../api/server';
import { createLogger, logDestination } from '../../domain/platform/logger';
import { stack } from '../helpers/stack';
import { helloScenario, hotPathScenarios, startHelloWorld } from '../../bench/api';
import { measureHttp, type HttpScenario } from '../../bench/harness';
import recorded from '../../bench/recorded-ratios.json';

const BURST = { duration: 2, warmup: 1, connections: 10, log: () => undefined };

async function ratio(scenario: HttpScenario, helloUrl: string): Promise<{ ratio: number; problems: string[] }> {
  const hello = await measureHttp(BURST, helloScenario(helloUrl));
  const measured = await measureHttp(BURST, scenario);
  return { ratio: measured.row.requestsPerSecond / hello.row.requestsPerSecond, problems: measured.problems };
}

describe('Performance regression check (ratios against bare Koa, not timings)', () => {
  let api: RunningApi;
  let hello: Awaited<ReturnType<typeof startHelloWorld>>;
  let scenarios: HttpScenario[];

  before(async () => {
    // Configured as the bench configures it: production response handling, a budget that never answers 429.
    api = await startApi(
      {
        ...stack().config,
        validateResponses: false,
        rateLimit: { ...stack().config.rateLimit, limit: 1_000_000_000 },
      },
      0,
      { logger: createLogger('info', logDestination('/dev/null')) },
    );
    hello = await startHelloWorld();
    scenarios = await hotPathScenarios(api.url);
  });
  after(async () => {
    await hello?.stop();
    await api?.stop();
  });

  it('keeps every hot path above half of its recorded ratio to bare Koa', async function () {
    this.timeout(120_000);
    const ratios = recorded.ratios as Record<string, number>;
    const failures: string[] = [];
    for (const scenario of scenarios) {
      const floor = ratios[scenario.name] / 2;
      expect(floor, `no recorded ratio for ${scenario.name}`).to.be.greaterThan(0);
      let result = await ratio(scenario, hello.url);
      if (result.ratio < floor) result = await ratio(scenario, hello.url);
      expect(result.problems, scenario.name).to.deep.equal([]);
      if (result.ratio < floor)
        failures.push(
          `${scenario.name}: ${result.ratio.toFixed(3)} of bare Koa, below half of ${ratios[scenario.name]}`,
        );
    }
    expect(failures).to.deep.equal([]);
  });
});
