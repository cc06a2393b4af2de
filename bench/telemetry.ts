/**
 * What telemetry costs (`npm run bench -- --only telemetry`): the same GET and charge rows against an API process
 * with telemetry off (no metrics endpoint, no OTLP endpoint: no span is recorded), then against one with it on as an
 * operator runs it — the metrics endpoint served, traces exported over OTLP/HTTP to a real Jaeger (the binary
 * `npm start` runs, scripts/lib/jaeger.ts) with OTEL_TRACES_SAMPLER=parentbased_traceidratio at 0.1 — and the worker
 * (in the bench's process) tracing into the same Jaeger. "Off" records no request duration either (the API mounts
 * its metrics middleware only with an endpoint to serve them).
 *
 * The phases alternate (off, on, off, on) so a machine whose load drifts during the run weighs on both alike, and
 * each reports, besides requests/s, the CPU each request cost the API process (and each charge the worker, in this
 * process): on a shared machine requests/s follow the neighbours' load, CPU per request far less.
 */
import { startJaeger } from '../scripts/lib/jaeger';
import { startTracing } from '../domain/platform/tracing';
import { stack } from '../test/helpers/stack';
import { freePort } from '../test/helpers/ports';
import { hotPathScenarios, warmUp } from './api';
import { measureHttp, type BenchContext, type Suite } from './harness';
import { startApiProcess } from './processes/fleet';
import type { Row } from './report';
import { transactionScenarios } from './transactions';

/** The share of new traces kept in the "on" phases: what production is expected to run. */
const SAMPLE_RATIO = 0.1;
const ROUNDS = 2;

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

export const telemetrySuite: Suite = {
  name: 'telemetry overhead',
  async run(ctx) {
    const [uiPort, otlpPort, queryGrpcPort, otlpGrpcPort] = await Promise.all([1, 2, 3, 4].map(() => freePort()));
    const jaeger = await startJaeger({ uiPort, otlpPort, queryGrpcPort, otlpGrpcPort });
    if (!jaeger) return { problems: ['telemetry overhead: no Jaeger binary and no Go toolchain to build one'] };
    const rows: Row[] = [];
    const problems: string[] = [];
    const off: Figures[] = [];
    const on: Figures[] = [];
    try {
      for (let round = 1; round <= ROUNDS; round += 1) {
        const offPhase = await measurePhase(ctx, `off (round ${round})`, {
          API_METRICS_PORT: 'off',
          OTEL_EXPORTER_OTLP_ENDPOINT: '',
        });
        const workerTracing = startTracing(
          {
            otlpTracesUrl: `${jaeger.otlpEndpoint}/v1/traces`,
            sampler: 'parentbased_traceidratio',
            sampleRatio: SAMPLE_RATIO,
            serviceName: null,
          },
          'worker',
        );
        const onPhase = await measurePhase(ctx, `on (round ${round})`, {
          API_METRICS_PORT: '0',
          OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
          OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
          OTEL_TRACES_SAMPLER_ARG: String(SAMPLE_RATIO),
        }).finally(() => workerTracing?.stop());
        for (const [phase, into] of [
          [offPhase, off],
          [onPhase, on],
        ] as const) {
          rows.push(...phase.rows);
          problems.push(...phase.problems);
          into.push(phase.figures);
        }
      }
    } finally {
      await jaeger.stop();
    }
    const lines = comparison(off, on);
    const about = `Telemetry on (metrics endpoint served, ${SAMPLE_RATIO * 100} % of traces to Jaeger) vs off, mean of ${ROUNDS} alternating rounds:`;
    return {
      rows,
      problems,
      text: [about, ...lines.map((line) => `  ${line}`)],
      markdown: [`**${about}**`, '', ...lines.map((line) => `- ${line}`)],
    };
  },
};
