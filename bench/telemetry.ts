/**
 * What telemetry costs (`npm run bench -- --only telemetry`): the same GET and charge rows against an API process
 * with telemetry off (no metrics endpoint, no OTLP endpoint: no span is recorded), then against one with it on as an
 * operator runs it — the metrics endpoint served, traces exported over OTLP/HTTP to a real Jaeger (the binary
 * `npm start` runs, scripts/lib/jaeger.ts) with OTEL_TRACES_SAMPLER=parentbased_traceidratio at 0.1 — and the worker
 * (in the bench's process) tracing into the same Jaeger. Metrics are recorded in both phases (the middleware always
 * counts; "off" serves no endpoint). Each GET is paired with a fresh bare-Koa measurement, so the off/on comparison
 * is of ratios taken side by side as well as of raw requests/s.
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

/** The share of new traces kept in the "on" phase: what production is expected to run. */
const SAMPLE_RATIO = 0.1;

interface Phase {
  rows: Row[];
  problems: string[];
  getRps: number;
  getRatio: number;
  chargeRps: number;
}

/** The GET /customers/:id and 1-attempt charge rows against a fresh API process started with `env`. */
async function measurePhase(ctx: BenchContext, label: string, env: NodeJS.ProcessEnv): Promise<Phase> {
  const api = await startApiProcess({ ...stack().env, ...env });
  try {
    const phase = { ...ctx, apiUrl: api.url, servingPids: [api.pid] };
    const read = (await hotPathScenarios(api.url, ctx.pgUrl)).find((scenario) => scenario.figure === 'customer_get')!;
    const [single] = await transactionScenarios(api.url);
    await warmUp(ctx.load, [read]);
    const baseline = await ctx.measureBaseline();
    const get = await measureHttp(phase, { ...read, name: `${read.name}, telemetry ${label}` });
    const charge = await measureHttp(phase, {
      ...single,
      name: `${single.name}, telemetry ${label}`,
      amount: ctx.connections * ctx.duration,
    });
    return {
      rows: [
        { ...get.row, ratio: get.row.requestsPerSecond / baseline },
        { ...charge.row, ratio: charge.row.requestsPerSecond / baseline },
      ],
      problems: [...get.problems, ...charge.problems],
      getRps: get.row.requestsPerSecond,
      getRatio: get.row.requestsPerSecond / baseline,
      chargeRps: charge.row.requestsPerSecond,
    };
  } finally {
    await api.stop();
  }
}

const pct = (on: number, off: number) => ((on - off) / off) * 100;
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)} %`;

export const telemetrySuite: Suite = {
  name: 'telemetry overhead',
  async run(ctx) {
    const off = await measurePhase(ctx, 'off', { API_METRICS_PORT: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: '' });

    const [uiPort, otlpPort, queryGrpcPort, otlpGrpcPort] = await Promise.all([1, 2, 3, 4].map(() => freePort()));
    const jaeger = await startJaeger({ uiPort, otlpPort, queryGrpcPort, otlpGrpcPort });
    if (!jaeger) return { problems: ['telemetry overhead: no Jaeger binary and no Go toolchain to build one'] };
    const workerTracing = startTracing(
      { otlpTracesUrl: `${jaeger.otlpEndpoint}/v1/traces`, sampleRatio: SAMPLE_RATIO, serviceName: null },
      'worker',
    );
    let on: Phase;
    try {
      on = await measurePhase(ctx, `on (metrics, ${SAMPLE_RATIO * 100} % of traces to Jaeger)`, {
        API_METRICS_PORT: '0',
        OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: String(SAMPLE_RATIO),
      });
    } finally {
      await workerTracing?.stop();
      await jaeger.stop();
    }

    const differences = [
      `GET /customers/:id requests/s ${signed(pct(on.getRps, off.getRps))}, its ratio to bare Koa ${signed(pct(on.getRatio, off.getRatio))}`,
      `POST /transactions (1 attempt) charges/s ${signed(pct(on.chargeRps, off.chargeRps))}`,
    ];
    return {
      rows: [...off.rows, ...on.rows],
      problems: [...off.problems, ...on.problems],
      text: ['Telemetry on vs off:', ...differences.map((line) => `  ${line}`)],
      markdown: ['**Telemetry on vs off:**', '', ...differences.map((line) => `- ${line}`)],
      figures: {
        'telemetry.get_ratio_delta_pct': pct(on.getRatio, off.getRatio),
        'telemetry.charge_delta_pct': pct(on.chargeRps, off.chargeRps),
      },
    };
  },
};
