/**
 * The CI-safe performance check: not a timed test. It runs the bench's shape — the API in its own process
 * configured for production, the load generator in another, the baselines in a third (bench/processes/) — and
 * measures each hot path side by side with its floor in short bursts: the reads against bare Koa + pg reading the
 * same customer row, liveness against bare Koa. Only the ratio between the two is checked, against the ratio
 * recorded in bench/recorded-ratios.json with a generous margin: the test fails when a hot path falls below half of
 * its recorded ratio. A burst that misses is measured once more before the test fails, so a moment of load from
 * elsewhere on the machine does not fail it.
 */
import { expect } from 'chai';
import { stack } from '../helpers/stack';
import { helloScenario, hotPathScenarios, warmUp } from '../../bench/api';
import { measureHttp, type HttpScenario } from '../../bench/harness';
import {
  startApiProcess,
  startBaselines,
  startLoadGenerator,
  type ApiProcess,
  type LoadGenerator,
} from '../../bench/processes/fleet';
import recorded from '../../bench/recorded-ratios.json';

describe('Performance regression check (ratios against the floors of the same run, not timings)', () => {
  let api: ApiProcess;
  let baselines: Awaited<ReturnType<typeof startBaselines>>;
  let load: LoadGenerator;
  let scenarios: HttpScenario[];

  before(async function () {
    this.timeout(120_000);
    [api, baselines, load] = await Promise.all([
      startApiProcess(stack().env),
      startBaselines(stack().config.databaseUrl),
      startLoadGenerator(),
    ]);
    scenarios = await hotPathScenarios(api.url, baselines.pg);
    await warmUp(load, scenarios);
  });
  after(async () => {
    await Promise.all([load?.stop(), baselines?.stop(), api?.stop()]);
  });

  async function ratio(scenario: HttpScenario): Promise<{ ratio: number; problems: string[] }> {
    const burst = { duration: 2, warmup: 1, connections: 10, log: () => undefined, load };
    const floor = await measureHttp(burst, scenario.floor ?? helloScenario(baselines.hello));
    const measured = await measureHttp(burst, scenario);
    return {
      ratio: measured.row.requestsPerSecond / floor.row.requestsPerSecond,
      problems: [...floor.problems, ...measured.problems],
    };
  }

  it('keeps every hot path above half of its recorded ratio to its floor', async function () {
    this.timeout(120_000);
    const ratios = recorded.ratios as Record<string, number>;
    const failures: string[] = [];
    for (const scenario of scenarios) {
      const floor = ratios[scenario.name] / 2;
      expect(floor, `no recorded ratio for ${scenario.name}`).to.be.greaterThan(0);
      let result = await ratio(scenario);
      if (result.ratio < floor) result = await ratio(scenario);
      expect(result.problems, scenario.name).to.deep.equal([]);
      if (result.ratio < floor)
        failures.push(
          `${scenario.name}: ${result.ratio.toFixed(3)} of its floor, below half of ${ratios[scenario.name]}`,
        );
    }
    expect(failures).to.deep.equal([]);
  });
});
