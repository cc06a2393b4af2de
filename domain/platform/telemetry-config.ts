/**
 * Telemetry settings, read with the rest of the configuration (config.ts): where each process serves its Prometheus
 * metrics, and whether traces are exported over OTLP. The OpenTelemetry variables are the standard ones
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_TRACES_SAMPLER_ARG, OTEL_SERVICE_NAME):
 * an operator's collector configuration carries over unchanged.
 */
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
    /** Share of new traces kept (parent-based: a request's spans all follow its first decision). */
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

function sampleRatio(env: NodeJS.ProcessEnv): number {
  const raw = env.OTEL_TRACES_SAMPLER_ARG;
  if (raw === undefined || raw === '') return 1;
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
  return Object.freeze({
    metrics: Object.freeze({
      host: env.METRICS_HOST || '127.0.0.1',
      apiPort: metricsPort(env, 'API_METRICS_PORT', testing ? 0 : 9464),
      workerPort: metricsPort(env, 'WORKER_METRICS_PORT', testing ? 0 : 9465),
    }),
    traces: Object.freeze({
      otlpTracesUrl: otlpTracesUrl(env),
      sampleRatio: sampleRatio(env),
      serviceName: env.OTEL_SERVICE_NAME || null,
    }),
  });
}
