/**
 * `npx tsx bench/telemetry-ab.ts [rounds]`: which part of telemetry costs `GET /customers/:id`. API processes
 * configured for production, on one stack: telemetry off; metrics only; tracing with 0 % and 10 % of new traces
 * sampled (parentbased_traceidratio, exporting to a sink, telemetry-sink.ts); metrics and tracing at 10 %. Each
 * configuration runs in BENCH_AB_COPIES processes (default 2): two processes of one configuration differ by 5–15 %
 * on a loaded machine, so a difference smaller than that between configurations is not one. Measured in alternation,
 * 3 s each per round, CPU per request from /proc; prints each process's median and each configuration's over its
 * copies (first round left out: warm-up).
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { stack, startStack, stopStack } from '../test/helpers/stack';
import { startBaselines, startLoadGenerator, startApiProcess } from './processes/fleet';
import { hotPathScenarios, warmUp } from './api';
import { servingCpu, servingCpuSince } from './process-cpu';
import { startOtlpSink } from './telemetry-sink';

const SECONDS = 3;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  process.env.LOG_LEVEL = 'silent';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await startStack();
  const sink = await startOtlpSink();
  const tracing = {
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.otlpEndpoint,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.1',
  };
  const noTracing = { OTEL_EXPORTER_OTLP_ENDPOINT: '' };
  const base: Record<string, NodeJS.ProcessEnv> = {
    off: { API_METRICS_PORT: 'off', ...noTracing },
    'metrics only': { API_METRICS_PORT: '0', ...noTracing },
    'tracing, 0 % sampled': { API_METRICS_PORT: 'off', ...tracing, OTEL_TRACES_SAMPLER_ARG: '0' },
    'tracing, 10 % sampled': { API_METRICS_PORT: 'off', ...tracing },
    'metrics + tracing, 10 %': { API_METRICS_PORT: '0', ...tracing },
  };
  const copies = Number(process.env.BENCH_AB_COPIES ?? 2);
  const configs: Record<string, NodeJS.ProcessEnv> = {};
  for (let copy = 1; copy <= copies; copy += 1)
    for (const [label, env] of Object.entries(base)) configs[`${label} #${copy}`] = env;
  const [baselines, load] = await Promise.all([startBaselines(stack().config.databaseUrl), startLoadGenerator()]);
  const apis = await Promise.all(
    Object.entries(configs).map(async ([label, env]) => ({
      label,
      api: await startApiProcess({ ...stack().env, ...env }),
    })),
  );
  try {
    const measured = [];
    for (const { label, api } of apis) {
      const [, read] = await hotPathScenarios(api.url, baselines.pg);
      await warmUp(load, [read]);
      measured.push({ name: `GET — ${label}`, pid: api.pid, scenario: read });
    }
    const samples = new Map<string, number[]>();
    for (let round = 1; round <= rounds; round += 1) {
      for (const { name, pid, scenario } of measured) {
        const before = servingCpu([pid]);
        const result = await load.run({ ...scenario.options, duration: SECONDS, connections: 10 });
        const spent = servingCpuSince(before, servingCpu([pid]));
        const cpu = samples.get(name) ?? [];
        cpu.push((spent.serving * 1000) / result.requestsTotal);
        samples.set(name, cpu);
      }
      process.stderr.write(`[ab] round ${round}/${rounds}\n`);
    }
    for (const [name, cpu] of samples)
      console.log(`${name}: ${Math.round(median(cpu))} µs (${cpu.map(Math.round).join(', ')})`);
    for (const label of Object.keys(base)) {
      const all = [...samples]
        .filter(([name]) => name.startsWith(`GET — ${label} #`))
        .flatMap(([, cpu]) => cpu.slice(1));
      console.log(`${label}: median ${Math.round(median(all))} µs over ${all.length}`);
    }
  } finally {
    await Promise.all([load.stop(), baselines.stop(), sink.stop(), ...apis.map(({ api }) => api.stop())]);
    await stopStack();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
