/**
 * `npm run bench`: every goal's row in one run, on a real stack (embedded PostgreSQL, Temporal dev server, the
 * worker in this process) started the way the tests start it, with the shape production runs: the API in a process
 * of its own configured for production, the load generator in another, the baselines (bare Koa, bare Koa + pg
 * reading the same customer row) in a third (bench/processes/). Request rates are ratios against those baselines,
 * measured in the same run. `npm run bench -- --quick` runs the same scenarios shorter
 * (under 3 minutes); `--only <text>` runs the suites whose name contains the text.
 *
 * Env: BENCH_DURATION (seconds measured per scenario, default 10, quick 3), BENCH_CONNECTIONS (default 10),
 * BENCH_WARMUP (seconds of unrecorded load before each scenario, so JIT and connection pools are warm; default 2,
 * quick 1). The webhook suites read BENCH_WEBHOOK_EVENTS, BENCH_WEBHOOK_ENDPOINTS and BENCH_HANGING_DELIVERIES.
 * Progress goes to stderr; the results (text, then markdown) go to stdout.
 */
import os from 'node:os';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { machine, markdownTable, textTable, type Row } from './report';
import { httpSuite, measureHttp, type BenchContext, type Suite } from './harness';
import { createScenario, helloScenario, hotPathScenarios, warmUp } from './api';
import { startApiProcess, startBaselines, startLoadGenerator } from './processes/fleet';
import { chargesSuite } from './charges';
import { chargeShapesSuite } from './charges-shapes';
import { isolationSuite, webhooksSuite } from './webhook-suites';
import { summaryTable } from './summary';
import { ceilingReport, measureTemporalCeiling } from './temporal-ceiling';
import { measureSubscriptions, subscriptionReport } from './subscriptions';
import { testClocksSuite } from './test-clocks';
import { clockIsolationSuite } from './clock-isolation';
import { overviewSuite } from './overview';
import { telemetrySuite } from './telemetry';
import { installBenchRuntime } from './worker-metrics';

const subscriptionsSuite: Suite = {
  name: 'subscription renewals and sleeping workflows',
  async run(ctx) {
    const result = await measureSubscriptions(ctx.log);
    const report = subscriptionReport(result);
    // For the summary's memory row: RSS at the sample nearest the worker's cache size, and at the last sample.
    const cache = stack().config.workerMaxCachedWorkflows;
    const atCache = result.memory.reduce((best, m) =>
      Math.abs(m.started - cache) < Math.abs(best.started - cache) ? m : best,
    );
    const figures = {
      'renewals.per_s': result.renewalsPerSecond,
      'renewals.due': result.due,
      'sleeping.count': result.memory.at(-1)?.started ?? 0,
      'sleeping.rss_at_cache_mib': atCache.rssMiB,
      'sleeping.rss_last_mib': result.memory.at(-1)?.rssMiB ?? NaN,
    };
    return { text: report.text, markdown: report.markdown, figures };
  },
};

/** A no-op workflow of each charge's shape on the same server: the most a charge could do (after chargesSuite). */
const ceilingSuite: Suite = {
  name: 'Temporal ceiling',
  async run(ctx) {
    const ceiling = await measureTemporalCeiling(
      { address: stack().config.temporal.address, durationSeconds: ctx.duration, connections: ctx.connections },
      ctx.log,
    );
    const charges = [
      { scenario: 'POST /transactions (1 attempt)', requestsPerSecond: ctx.figures['charge_single.rps'] },
      { scenario: 'POST /transactions (3 attempts)', requestsPerSecond: ctx.figures['charge_cascade.rps'] },
    ].filter((charge) => Number.isFinite(charge.requestsPerSecond));
    const lal = ceiling.find((row) => row.shape === 'lal');
    return { ...ceilingReport(ceiling, charges), figures: { 'ceiling_lal.rps': lal?.perSecond ?? NaN } };
  },
};

/** Every suite of the run, in order. To add one, append it here (before isolationSuite, which must stay last). */
const SUITES: Suite[] = [
  httpSuite('API requests', async (ctx) => {
    const scenarios = [...(await hotPathScenarios(ctx.apiUrl, ctx.pgUrl)), await createScenario(ctx.apiUrl)];
    await warmUp(ctx.load, scenarios);
    return scenarios;
  }),
  chargesSuite,
  chargeShapesSuite,
  ceilingSuite,
  webhooksSuite,
  subscriptionsSuite,
  testClocksSuite,
  clockIsolationSuite,
  overviewSuite,
  telemetrySuite,
  isolationSuite,
];

const QUICK = process.argv.includes('--quick');
/** `--only <text>`: the suites whose name contains the text (measuring one lever without the whole run). */
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
if (QUICK) {
  process.env.BENCH_SUB_DUE ??= '100';
  process.env.BENCH_SUB_SLEEPING ??= '1000';
  process.env.BENCH_WEBHOOK_EVENTS ??= '100';
  process.env.BENCH_HANGING_DELIVERIES ??= '30';
}
import { benchTemporalOnPostgres } from './temporal-postgres';

function envInt(name: string, fallback: number, min: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}`);
  return value;
}

const DURATION = envInt('BENCH_DURATION', QUICK ? 3 : 10, 1);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10, 1);
const WARMUP = envInt('BENCH_WARMUP', QUICK ? 1 : 2, 0);

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  await installBenchRuntime(); // the worker's metrics, for the renewal suites' worker rows (bench/worker-metrics.ts)
  const started = Date.now();

  log(`starting the stack (embedded PostgreSQL, Temporal dev server, worker)${QUICK ? ' — quick run' : ''}…`);
  await startStack();
  log('starting the API (production configuration), the baselines and the load generator, each in its own process…');
  const [api, baselines, load] = await Promise.all([
    startApiProcess(stack().env),
    startBaselines(stack().config.databaseUrl),
    startLoadGenerator(),
  ]).catch(async (error: unknown) => {
    await stopStack();
    throw error;
  });
  try {
    const servingPids = [api.pid, baselines.pid];
    const settings = { duration: DURATION, warmup: WARMUP, connections: CONNECTIONS, log, load, servingPids };
    const baseline = await measureHttp(settings, helloScenario(baselines.hello));
    const figures: Record<string, number> = {};
    const ctx: BenchContext = {
      ...settings,
      apiUrl: api.url,
      apiPid: api.pid,
      pgUrl: baselines.pg,
      quick: QUICK,
      baseline: baseline.row.requestsPerSecond,
      figures,
      async measureBaseline() {
        const again = await measureHttp(settings, { ...helloScenario(baselines.hello), name: 'hello world (paired)' });
        return again.row.requestsPerSecond;
      },
    };

    const rows: Row[] = [{ ...baseline.row, ratio: 1 }];
    const problems = [...baseline.problems];
    const text: string[] = [];
    const markdown: string[] = [];
    for (const suite of SUITES.filter(({ name }) => !ONLY || name.includes(ONLY))) {
      log(`— ${suite.name}`);
      const result = await suite.run(ctx);
      rows.push(...(result.rows ?? []));
      problems.push(...(result.problems ?? []));
      Object.assign(figures, result.figures);
      if (result.text) text.push('', ...result.text);
      if (result.markdown) markdown.push('', ...result.markdown);
    }

    const about = [
      ...machine(),
      `Load: autocannon in a process of its own, ${DURATION} s measured per scenario after ${WARMUP} s warm-up, ${CONNECTIONS} connections${QUICK ? ' (--quick)' : ''}`,
      'API: a process of its own, APP_ENV=production (no response validation, every request logged at info to stdout, sent nowhere), ' +
        'no worker in it (no eager workflow start); rate limit raised to 1e9 requests/60 s so the bench measures the service, not 429s ' +
        '(the limiter still runs on every request). Baselines (bare Koa, bare Koa + pg) in a process of their own.',
      `Machine load when the run ended (uptime): ${os
        .loadavg()
        .map((load) => load.toFixed(1))
        .join(', ')}`,
      `Whole run: ${((Date.now() - started) / 1000).toFixed(0)} s`,
    ];
    const summary = summaryTable(figures, CONNECTIONS);
    const warnings = problems.map((problem) => `WARNING: run invalid: ${problem}`);
    process.stdout.write(
      [
        '',
        ...about,
        '',
        textTable(rows),
        ...text,
        '',
        ...summary,
        '',
        ...warnings,
        '',
        '--- markdown ---',
        '',
        ...about.map((line) => `- ${line}`),
        '',
        markdownTable(rows),
        ...markdown,
        '',
        ...summary,
        ...warnings.map((warning) => `\n**${warning}**`),
        '',
      ].join('\n'),
    );
  } finally {
    log('stopping…');
    await Promise.all([load.stop(), baselines.stop(), api.stop()]);
    await stopStack();
  }
}

// `npm run bench -- --temporal-postgres`: the charge on a PostgreSQL-backed Temporal server instead (that file).
(process.argv.includes('--temporal-postgres') ? benchTemporalOnPostgres() : main()).then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
