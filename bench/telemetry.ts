/**
 * What telemetry costs (`npm run bench -- --only telemetry`): the same GET and charge rows against an API process
 * with telemetry off (no metrics endpoint, no OTLP endpoint: no span is recorded), then against one with it on as an
 * operator runs it — the metrics endpoint served, traces exported over OTLP/HTTP with
 * OTEL_TRACES_SAMPLER=parentbased_traceidratio at 0.1, and the worker (in the bench's process) tracing into the same
 * collector — twice: to a real Jaeger (the binary `npm start` runs, scripts/lib/jaeger.ts), and to a sink that
 * discards what it receives (telemetry-sink.ts). Jaeger shares the two cores with what is measured; the sink costs
 * next to nothing, so the two "on" phases tell the export's cost to the API from Jaeger's competition for the cores.
 * "Off" records no request duration either (the API mounts its metrics middleware only with an endpoint to serve them).
 *
 * The phases alternate (off, Jaeger, sink, off, Jaeger, sink) so a machine whose load drifts during the run weighs on both alike, and
 * each reports, besides requests/s, the CPU each request cost the API process (and each charge the worker, in this
 * process): on a shared machine requests/s follow the neighbours' load, CPU per request far less.
 */
import os from 'node:os';
import { startJaeger } from '../scripts/lib/jaeger';
import { startTracing } from '../domain/platform/tracing';
import { stack } from '../test/helpers/stack';
import { freePort } from '../test/helpers/ports';
import { hotPathScenarios, warmUp } from './api';
import { measureHttp, type BenchContext, type Suite } from './harness';
import { startApiProcess } from './processes/fleet';
import type { Row } from './report';
import { transactionScenarios } from './transactions';
import { startOtlpSink } from './telemetry-sink';

/** The share of new traces kept in the "on" phases: what production is expected to run. */
const SAMPLE_RATIO = 0.1;
/** Rounds of (off, Jaeger, sink); BENCH_TELEMETRY_ROUNDS raises it where neighbours load the machine. */
const ROUNDS = Number(process.env.BENCH_TELEMETRY_ROUNDS ?? 2);

interface Figures {
  getRps: number;
  /** Requests/s over bare Koa's, measured right before. */
  getRatio: number;
  /** µs of the API process per GET. */
  getCpu: number;
  chargeRps: number;
  /** µs of the API process per charge. */
  chargeApiCpu: number;
  /** µs of this process (the worker) per charge. */
  chargeWorkerCpu: number;
}

/** The GET /customers/:id and 1-attempt charge rows against a fresh API process started with `env`. */
async function measurePhase(
  ctx: BenchContext,
  label: string,
  env: NodeJS.ProcessEnv,
): Promise<{ rows: Row[]; problems: string[]; figures: Figures }> {
  const api = await startApiProcess({ ...stack().env, ...env });
  try {
    const phase = { ...ctx, apiUrl: api.url, servingPids: [api.pid] };
    const read = (await hotPathScenarios(api.url, ctx.pgUrl)).find((scenario) => scenario.figure === 'customer_get')!;
    const [single] = await transactionScenarios(api.url);
    await warmUp(ctx.load, [read]);
    const baseline = await ctx.measureBaseline();
    const get = await measureHttp(phase, { ...read, name: `${read.name}, telemetry ${label}` });
    const amount = ctx.connections * ctx.duration;
    const workerBefore = process.cpuUsage();
    const charge = await measureHttp(phase, { ...single, name: `${single.name}, telemetry ${label}`, amount });
    const worker = process.cpuUsage(workerBefore);
    return {
      rows: [
        { ...get.row, ratio: get.row.requestsPerSecond / baseline },
        { ...charge.row, ratio: charge.row.requestsPerSecond / baseline },
      ],
      problems: [...get.problems, ...charge.problems],
      figures: {
        getRps: get.row.requestsPerSecond,
        getRatio: get.row.requestsPerSecond / baseline,
        getCpu: get.row.cpuUs?.serving ?? NaN,
        chargeRps: charge.row.requestsPerSecond,
        chargeApiCpu: charge.row.cpuUs?.serving ?? NaN,
        // The charges' own warm-up (one per connection) ran inside the window too.
        chargeWorkerCpu: (worker.user + worker.system) / (amount + ctx.connections),
      },
    };
  } finally {
    await api.stop();
  }
}

const mean = (phases: Figures[], key: keyof Figures) =>
  phases.reduce((sum, phase) => sum + phase[key], 0) / phases.length;

function comparison(off: Figures[], on: Figures[]): string[] {
  const line = (what: string, key: keyof Figures, digits = 0) => {
    const [a, b] = [mean(off, key), mean(on, key)];
    const change = ((b - a) / a) * 100;
    return `${what}: ${a.toFixed(digits)} off → ${b.toFixed(digits)} on (${change >= 0 ? '+' : ''}${change.toFixed(1)} %)`;
  };
  return [
    line('GET /customers/:id, requests/s', 'getRps'),
    line('GET /customers/:id, ratio to bare Koa measured right before', 'getRatio', 3),
    line('GET /customers/:id, API CPU per request (µs)', 'getCpu'),
    line('POST /transactions (1 attempt), charges/s', 'chargeRps', 1),
    line('POST /transactions (1 attempt), API CPU per charge (µs)', 'chargeApiCpu'),
    line('POST /transactions (1 attempt), worker CPU per charge (µs)', 'chargeWorkerCpu'),
  ];
}

/** The "on" environment of the API process, exporting to `otlpEndpoint`. */
const onEnv = (otlpEndpoint: string): NodeJS.ProcessEnv => ({
  API_METRICS_PORT: '0',
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: String(SAMPLE_RATIO),
});

const uptime = () => {
  const [one, five] = os.loadavg();
  return `load ${one.toFixed(1)} (1 min), ${five.toFixed(1)} (5 min)`;
};

export const telemetrySuite: Suite = {
  name: 'telemetry overhead',
  async run(ctx) {
    const [uiPort, otlpPort, queryGrpcPort, otlpGrpcPort] = await Promise.all([1, 2, 3, 4].map(() => freePort()));
    const jaeger = await startJaeger({ uiPort, otlpPort, queryGrpcPort, otlpGrpcPort });
    if (!jaeger) return { problems: ['telemetry overhead: no Jaeger binary and no Go toolchain to build one'] };
    const sink = await startOtlpSink();
    const collectors = [
      { label: 'on, Jaeger', otlpEndpoint: jaeger.otlpEndpoint, figures: [] as Figures[] },
      { label: 'on, sink', otlpEndpoint: sink.otlpEndpoint, figures: [] as Figures[] },
    ];
    const rows: Row[] = [];
    const problems: string[] = [];
    const off: Figures[] = [];
    const loadBefore = uptime();
    try {
      for (let round = 1; round <= ROUNDS; round += 1) {
        const offPhase = await measurePhase(ctx, `off (round ${round})`, {
          API_METRICS_PORT: 'off',
          OTEL_EXPORTER_OTLP_ENDPOINT: '',
        });
        rows.push(...offPhase.rows);
        problems.push(...offPhase.problems);
        off.push(offPhase.figures);
        for (const collector of collectors) {
          // The worker (this process) traces into the same collector as the API.
          const workerTracing = startTracing(
            {
              otlpTracesUrl: `${collector.otlpEndpoint}/v1/traces`,
              sampler: 'parentbased_traceidratio',
              sampleRatio: SAMPLE_RATIO,
              serviceName: null,
            },
            'worker',
          );
          const phase = await measurePhase(
            ctx,
            `${collector.label} (round ${round})`,
            onEnv(collector.otlpEndpoint),
          ).finally(() => workerTracing?.stop());
          rows.push(...phase.rows);
          problems.push(...phase.problems);
          collector.figures.push(phase.figures);
        }
      }
    } finally {
      await jaeger.stop();
    }
    const { exports, bytes } = await sink.received();
    await sink.stop();
    if (exports === 0) problems.push('telemetry overhead: the OTLP sink received no export');
    const about =
      `Telemetry on (metrics endpoint served, ${SAMPLE_RATIO * 100} % of traces exported) vs off, mean of ${ROUNDS} ` +
      `alternating rounds (off, on to Jaeger, on to the sink); ${loadBefore} at the start, ${uptime()} at the end`;
    const blocks = collectors.map(({ label, figures }) => ({ label, lines: comparison(off, figures) }));
    const sinkLine = `The sink received ${exports} exports (${(bytes / 1024).toFixed(0)} KiB) from the API and the worker.`;
    return {
      rows,
      problems,
      text: [
        about,
        ...blocks.flatMap(({ label, lines }) => [`  ${label}:`, ...lines.map((l) => `    ${l}`)]),
        sinkLine,
      ],
      markdown: [
        `**${about}**`,
        ...blocks.flatMap(({ label, lines }) => ['', `${label}:`, '', ...lines.map((l) => `- ${l}`)]),
        '',
        sinkLine,
      ],
    };
  },
};
