/**
 * Telemetry settings, read with the rest of the configuration (config.ts): where each process serves its Prometheus
 * metrics, and whether traces are exported over OTLP. The OpenTelemetry variables are the standard ones
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG,
 * OTEL_SERVICE_NAME), read as the OpenTelemetry specification defines them: an operator's collector configuration
 * carries over unchanged.
 */

/** The OTEL_TRACES_SAMPLER values the specification defines for the SDK's own samplers. */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

export interface TelemetryConfig {
  readonly metrics: {
    /** Address the metrics endpoints listen on: loopback unless METRICS_HOST opens it (a Prometheus in another container). */
    readonly host: string;
    /** null: no endpoint. 0: any free port (the test stack, so concurrent stacks never collide). */
    readonly apiPort: number | null;
    readonly workerPort: number | null;
  };
  readonly traces: {
    /** The OTLP/HTTP traces URL, or null: no spans are recorded or exported (the default in production). */
    readonly otlpTracesUrl: string | null;
    /** OTEL_TRACES_SAMPLER; parentbased_always_on when unset, as the specification's default. */
    readonly sampler: TraceSamplerName;
    /** Share of traces kept by the traceidratio samplers (OTEL_TRACES_SAMPLER_ARG, default 1); others ignore it. */
    readonly sampleRatio: number;
    /** OTEL_SERVICE_NAME, else switchyard-api / switchyard-worker by role. */
    readonly serviceName: string | null;
  };
}

function metricsPort(env: NodeJS.ProcessEnv, name: string, fallback: number): number | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'off') return null;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number or off`);
  return port;
}

/** An unknown sampler is a startup error: a typo must not silently record every trace, or none. */
function sampler(env: NodeJS.ProcessEnv): TraceSamplerName {
  const raw = env.OTEL_TRACES_SAMPLER;
  if (raw === undefined || raw === '') return 'parentbased_always_on';
  const name = TRACE_SAMPLERS.find((candidate) => candidate === raw.trim().toLowerCase());
  if (!name) throw new Error(`OTEL_TRACES_SAMPLER must be one of ${TRACE_SAMPLERS.join(', ')} (got "${raw}")`);
  return name;
}

/** The specification reads OTEL_TRACES_SAMPLER_ARG only for the samplers that take one: the traceidratio ones. */
function sampleRatio(env: NodeJS.ProcessEnv, name: TraceSamplerName): number {
  const raw = env.OTEL_TRACES_SAMPLER_ARG;
  if (!name.endsWith('traceidratio') || raw === undefined || raw === '') return 1;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new Error('OTEL_TRACES_SAMPLER_ARG must be in [0, 1]');
  return ratio;
}

/** The traces endpoint as the OTLP exporter specification derives it: the signal's own URL, else base + /v1/traces. */
function otlpTracesUrl(env: NodeJS.ProcessEnv): string | null {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return null;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : null;
}

export function telemetryConfig(env: NodeJS.ProcessEnv, appEnv: string): TelemetryConfig {
  // Concurrent test stacks on one machine would fight over fixed ports: tests take free ones unless told otherwise.
  const testing = appEnv === 'test';
  const traceSampler = sampler(env);
  return Object.freeze({
    metrics: Object.freeze({
      host: env.METRICS_HOST || '127.0.0.1',
      apiPort: metricsPort(env, 'API_METRICS_PORT', testing ? 0 : 9464),
      workerPort: metricsPort(env, 'WORKER_METRICS_PORT', testing ? 0 : 9465),
    }),
    traces: Object.freeze({
      otlpTracesUrl: otlpTracesUrl(env),
      sampler: traceSampler,
      sampleRatio: sampleRatio(env, traceSampler),
      serviceName: env.OTEL_SERVICE_NAME || null,
    }),
  });
}
