/**
 * Traces (OpenTelemetry): one per request, from the API's server span through the Temporal client, the workflow and
 * its activities (@temporalio/interceptors-opentelemetry) to the provider's HTTP call (undici's diagnostics
 * channels). Off unless an OTLP endpoint is configured (telemetry-config.ts): then nothing records a span and the
 * API's calls are the no-op tracer's. Span attributes carry ids, codes and outcomes only; HTTP client spans keep the
 * destination's origin and never its path or query (a merchant's webhook URL may embed a secret).
 */
import {
  context,
  propagation,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
} from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type BufferConfig,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TelemetryConfig } from './telemetry-config';

type TraceSettings = TelemetryConfig['traces'];

export interface RunningTracing {
  /** Exports every finished span now. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The interceptors of every Temporal client of the process (the API's, the outbox listener's), shared by reference:
 * the SDK reads the list at each call, so a client made before tracing starts (the test stack's) traces once it
 * does. While tracing runs it holds the one that opens a span for a workflow start or signal and carries the trace in
 * its headers (an unsampled request's too: the worker then follows the decision); while tracing is off it is empty,
 * and a start composes no interceptor, builds no span and injects no header.
 */
export const temporalClientInterceptors: OpenTelemetryWorkflowClientInterceptor[] = [];

/** The running tracing's sampler and processor; undefined while tracing is off (or stopped). */
let current: { processor: SpanProcessor; sampler: Sampler } | undefined;

/**
 * The process's one tracer provider, made on the first start and never replaced: a tracer handed out before a
 * stop and a restart (the Temporal client's interceptor keeps one) resolves to it for good, so it must stay the one
 * that records. It samples and exports through `current`; stopped, it records nothing. Its resource (the service
 * name) is the first start's: a process is one service.
 */
let provider: NodeTracerProvider | undefined;

const currentSampler: Sampler = {
  shouldSample: (...args) => current?.sampler.shouldSample(...args) ?? { decision: SamplingDecision.NOT_RECORD },
  toString: () => "the running tracing's sampler",
};
const currentProcessor: SpanProcessor = {
  onStart: (span, parent) => current?.processor.onStart(span, parent),
  onEnd: (span) => current?.processor.onEnd(span),
  forceFlush: async () => current?.processor.forceFlush(),
  shutdown: async () => undefined,
};

/**
 * The sampler OTEL_TRACES_SAMPLER names, as the OpenTelemetry specification defines each: the parentbased_ ones
 * follow a caller's decision (its traceparent's sampled flag) and decide by the root sampler only for new traces.
 */
export function samplerOf({ sampler, sampleRatio }: Pick<TraceSettings, 'sampler' | 'sampleRatio'>): Sampler {
  const root = sampler.endsWith('always_on')
    ? new AlwaysOnSampler()
    : sampler.endsWith('always_off')
      ? new AlwaysOffSampler()
      : new TraceIdRatioBasedSampler(sampleRatio);
  return sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/**
 * The OTLP export's batches: up to 2,048 spans a post (every 5 s, the SDK's delay), queued up to 8,192 (beyond that
 * a span is dropped, never waited for). The SDK's 512 a post meant a post every ~2 s at 10 % of 3,000 requests/s:
 * the same spans in fewer, larger posts cost the process less per span. OTEL_BSP_MAX_EXPORT_BATCH_SIZE and
 * OTEL_BSP_MAX_QUEUE_SIZE still set them (the SDK reads the variables for what is not given here).
 */
export function exportBatchOf(env: NodeJS.ProcessEnv): BufferConfig {
  return {
    ...(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ? {} : { maxExportBatchSize: 2048 }),
    ...(env.OTEL_BSP_MAX_QUEUE_SIZE ? {} : { maxQueueSize: 8192 }),
  };
}

/**
 * Starts tracing for the process (once: `npm start` runs the API and the worker in one). `exporter`: a test's
 * in-memory exporter, exported span by span; otherwise OTLP/HTTP in batches. Null when tracing is off.
 */
export function startTracing(
  settings: TraceSettings,
  role: 'api' | 'worker' | 'switchyard',
  exporter?: SpanExporter,
): RunningTracing | null {
  if (current) return { flush: () => current!.processor.forceFlush(), stop: async () => undefined };
  if (!exporter && !settings.otlpTracesUrl) return null;
  const processor = exporter
    ? new SimpleSpanProcessor(exporter)
    : new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.otlpTracesUrl! }), exportBatchOf(process.env));
  if (!provider) {
    const serviceName = settings.serviceName ?? (role === 'switchyard' ? role : `switchyard-${role}`);
    provider = new NodeTracerProvider({
      resource: new Resource({ 'service.name': serviceName }),
      sampler: currentSampler,
      spanProcessors: [currentProcessor],
    });
  }
  provider.register();
  const unregister = registerInstrumentations({
    instrumentations: [
      new UndiciInstrumentation({
        startSpanHook: (request) => ({ 'url.full': request.origin, 'url.path': '', 'url.query': '' }),
      }),
    ],
  });
  const running = { processor, sampler: samplerOf(settings) };
  current = running;
  temporalClientInterceptors.push(new OpenTelemetryWorkflowClientInterceptor());
  return {
    flush: () => processor.forceFlush(),
    async stop() {
      unregister();
      if (current === running) current = undefined;
      temporalClientInterceptors.length = 0;
      await processor.shutdown();
      // No active span, context or propagated header while stopped (log lines carry no trace_id); a start registers
      // the same provider again.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * Where the worker's workflow spans go (they are made inside the workflow sandbox and leave it through a sink): to
 * the running tracing's processor, or nowhere while tracing is off.
 */
export const workflowSpanProcessor: SpanProcessor = {
  onStart: () => undefined,
  onEnd: (span: ReadableSpan) => current?.processor.onEnd(span),
  forceFlush: async () => current?.processor.forceFlush(),
  shutdown: async () => undefined,
};

/** The resource workflow spans are exported with (the running tracing's). */
export const workflowSpanResource = (): Resource => provider?.resource ?? Resource.empty();

/** Whether this process records spans now: what spares per-request and per-activity work when it does not. */
export const tracingRuns = (): boolean => current !== undefined;

/** Adds attributes to the active span when it is recorded (no-op while tracing is off or the trace unsampled). */
export function annotateActiveSpan(attributes: Attributes): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttributes(attributes);
}

/**
 * The active span's W3C traceparent, to store with work done later (an event's webhook deliveries); null while
 * tracing is off or no span is active. It carries ids and the sampling flag only.
 */
export function activeTraceparent(): string | null {
  if (!tracingRuns()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * The context that continues a stored traceparent, and a link to the span active here when that span is in another
 * trace (a sweep's, a delivery workflow's): the work then shows in the trace that caused it and is still reachable
 * from the one that ran it. Inside the stored trace already (a workflow started in it), the active span is the parent.
 */
function continuing(traceparent: string | null): { parent: Context; links: Link[] } {
  const active = trace.getSpanContext(context.active());
  const stored = traceparent ? propagation.extract(context.active(), { traceparent }) : undefined;
  const storedSpan = stored && trace.getSpanContext(stored);
  if (!stored || !storedSpan || storedSpan.traceId === active?.traceId) return { parent: context.active(), links: [] };
  return { parent: stored, links: active ? [{ context: active }] : [] };
}

/** Runs `work` in the trace a stored traceparent names (no span of its own: a workflow start makes one). */
export function inStoredTrace<T>(traceparent: string | null, work: () => T): T {
  return context.with(continuing(traceparent).parent, work);
}

const tracer = trace.getTracer('switchyard');

/** Runs `work` in a span of its own that continues a stored traceparent (see continuing); attributes: ids only. */
export async function spanInStoredTrace<T>(
  traceparent: string | null,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  const { parent, links } = continuing(traceparent);
  const span = tracer.startSpan(name, { attributes, links }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
