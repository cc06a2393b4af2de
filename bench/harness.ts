/**
 * The shapes every `npm run bench` suite shares. A suite is one entry in SUITES (bench/run.ts): it gets the
 * context of the run and returns rows for the request table, named figures for the goals summary, and any
 * report lines of its own.
 */
import type autocannon from 'autocannon';
import type { Row } from './report';
import type { LoadGenerator } from './processes/fleet';
import { servingCpu, servingCpuSince } from './process-cpu';

const perRequestUs = (spent: { serving: number; postgresql: number }, requests: number) => ({
  serving: (spent.serving * 1000) / requests,
  postgresql: (spent.postgresql * 1000) / requests,
});

export interface BenchContext {
  /** The API in its own process, configured for production (bench/processes/api.ts). */
  apiUrl: string;
  /** The API process's pid, for its CPU (bench/process-cpu.ts). */
  apiPid: number;
  /** bare Koa + pg in the baselines' process: GET `${pgUrl}/<merchant id>/<customer id>`. */
  pgUrl: string;
  /** autocannon in a process of its own. */
  load: LoadGenerator;
  /** The pids of the processes serving requests (the API's, the baselines'): for each row's CPU per request. */
  servingPids?: number[];
  /** `--quick`: shorter measurements, same scenarios. */
  quick: boolean;
  duration: number;
  warmup: number;
  connections: number;
  /** The named figures of the suites that ran before this one. */
  figures: Readonly<Record<string, number>>;
  /** Requests/s of the bare Koa hello-world measured at the start of this run. */
  baseline: number;
  /** Measures the bare Koa hello-world again, now (for ratios of paired scenarios). */
  measureBaseline(): Promise<number>;
  log(message: string): void;
}

export interface HttpScenario {
  name: string;
  /** The status every measured request must get; anything else makes the run invalid. */
  expectedStatus: number;
  options: autocannon.Options;
  /** Defaults to the run's BENCH_CONNECTIONS. */
  connections?: number;
  /** Seconds measured at least, whatever BENCH_DURATION says (slow requests need a few to complete). */
  minDuration?: number;
  /**
   * Measure this many requests, all answered, instead of a duration: a request autocannon abandons at the end of
   * a duration (a charge) would go on running on the server and slow down the next scenario.
   */
  amount?: number;
  /** Key under which the row's figures go to the summary (`<figure>.rps`, `.p50`, `.p99`, `.ratio`). */
  figure?: string;
  /**
   * Measure bare Koa again right before this scenario and take the ratio against that: on a shared machine the
   * load changes within a run, and a ratio is only meaningful between two measurements taken side by side.
   */
  paired?: boolean;
  /**
   * A floor measured right before this scenario too (bare Koa + pg reading the same row, for a read): the row's
   * figures get `<figure>.floor_ratio` and `<figure>.floor`.
   */
  floor?: HttpScenario;
}

export interface SuiteResult {
  rows?: Row[];
  /** Named numbers the goals summary reads (bench/summary.ts). */
  figures?: Record<string, number>;
  text?: string[];
  markdown?: string[];
  /** Anything that makes the run invalid (unexpected statuses, errors). */
  problems?: string[];
}

export interface Suite {
  name: string;
  run(ctx: BenchContext): Promise<SuiteResult>;
}

export async function measureHttp(
  ctx: Pick<BenchContext, 'duration' | 'warmup' | 'connections' | 'log' | 'load' | 'servingPids'>,
  scenario: HttpScenario,
): Promise<{ row: Omit<Row, 'ratio'>; problems: string[] }> {
  const connections = scenario.connections ?? ctx.connections;
  const duration = Math.max(ctx.duration, scenario.minDuration ?? 0);
  if (scenario.amount) {
    // Slow requests: a fixed number, all answered, so none is left running into the next scenario.
    ctx.log(
      `${scenario.name}: ${connections} warm-up requests, then ${scenario.amount} measured, ${connections} connections`,
    );
    await ctx.load.run({ ...scenario.options, amount: connections, connections });
  } else {
    ctx.log(`${scenario.name}: ${ctx.warmup}s warm-up, then ${duration}s measured, ${connections} connections`);
    if (ctx.warmup > 0) await ctx.load.run({ ...scenario.options, duration: ctx.warmup, connections });
  }
  const cpuBefore = ctx.servingPids && servingCpu(ctx.servingPids);
  const result = await ctx.load.run(
    scenario.amount
      ? { ...scenario.options, amount: scenario.amount, connections }
      : { ...scenario.options, duration, connections },
  );
  const problems: string[] = [];
  const unexpected = Object.entries(result.statusCodeStats).filter(
    ([status]) => Number(status) !== scenario.expectedStatus,
  );
  if (unexpected.length > 0) {
    problems.push(
      `${scenario.name}: expected only ${scenario.expectedStatus}, got ${unexpected.map(([s, { count }]) => `${count}× ${s}`).join(', ')}`,
    );
  }
  if (result.errors > 0 || result.timeouts > 0) {
    problems.push(`${scenario.name}: ${result.errors} connection errors, ${result.timeouts} timeouts`);
  }
  return {
    row: {
      scenario: scenario.name,
      // Per-second samples average out a duration; a counted run ends mid-second, so it is total over time taken.
      requestsPerSecond: scenario.amount ? result.requestsTotal / result.duration : result.requestsAverage,
      p50: result.p50,
      p99: result.p99,
      non2xx: result.non2xx,
      ...(cpuBefore && ctx.servingPids && result.requestsTotal > 0
        ? { cpuUs: perRequestUs(servingCpuSince(cpuBefore, servingCpu(ctx.servingPids)), result.requestsTotal) }
        : {}),
    },
    problems,
  };
}

/**
 * A suite of autocannon scenarios: one table row each (and one for each scenario's floor), ratio against the run's
 * bare Koa baseline.
 */
export function httpSuite(name: string, build: (ctx: BenchContext) => Promise<HttpScenario[]>): Suite {
  return {
    name,
    async run(ctx) {
      const rows: Row[] = [];
      const figures: Record<string, number> = {};
      const problems: string[] = [];
      for (const scenario of await build(ctx)) {
        const baseline = scenario.paired ? await ctx.measureBaseline() : ctx.baseline;
        const floor = scenario.floor ? await measureHttp(ctx, scenario.floor) : undefined;
        if (floor) {
          rows.push({ ...floor.row, ratio: floor.row.requestsPerSecond / baseline });
          problems.push(...floor.problems);
        }
        const { row, problems: found } = await measureHttp(ctx, scenario);
        const ratio = row.requestsPerSecond / baseline;
        rows.push({ ...row, ratio });
        problems.push(...found);
        // A scenario that completed no request in its window has no latency to report.
        if (scenario.figure && row.requestsPerSecond > 0) {
          Object.assign(figures, {
            [`${scenario.figure}.rps`]: row.requestsPerSecond,
            [`${scenario.figure}.p50`]: row.p50,
            [`${scenario.figure}.p99`]: row.p99,
            [`${scenario.figure}.ratio`]: ratio,
            [`${scenario.figure}.baseline`]: baseline,
          });
          if (floor) {
            figures[`${scenario.figure}.floor`] = floor.row.requestsPerSecond;
            figures[`${scenario.figure}.floor_ratio`] = row.requestsPerSecond / floor.row.requestsPerSecond;
          }
          if (row.cpuUs) figures[`${scenario.figure}.cpu_us`] = row.cpuUs.serving;
          if (row.cpuUs && floor?.row.cpuUs) figures[`${scenario.figure}.floor_cpu_us`] = floor.row.cpuUs.serving;
        }
      }
      return { rows, figures, problems };
    },
  };
}
