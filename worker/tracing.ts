/**
 * The worker's half of a trace (domain/platform/tracing.ts): the Temporal SDK's OpenTelemetry interceptors continue
 * the trace the API's workflow start carried in its headers — a span for the workflow run, one per activity (the
 * provider's HTTP call is a child of its activity's) — and workflow spans leave the sandbox through a sink.
 */
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptors, InjectedSinks } from '@temporalio/worker';
import {
  temporalClientInterceptors,
  tracingRuns,
  workflowSpanProcessor,
  workflowSpanResource,
} from '../domain/platform/tracing';

/** Bundled with the workflows (bundleWorkflowCode's workflowInterceptorModules): the workflow-side interceptors. */
export const WORKFLOW_INTERCEPTOR_MODULES = [
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

/** An activity's span, continuing its workflow's trace; while this process records no span, no interceptor at all. */
export function activityTracingInterceptor(ctx: Context): ActivityInterceptors {
  if (!tracingRuns()) return {};
  return {
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  };
}

/**
 * The sink workflow spans leave the sandbox through (a no-op while tracing is off). The resource — the service name
 * — is read at each export, not when the Worker is made: a Worker started before tracing (the test stack's) still
 * exports its spans under the running tracing's service.
 */
export function workflowSpanSinks(): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => makeWorkflowExporter(workflowSpanProcessor, workflowSpanResource()).export.fn(info, spans),
      },
    },
  };
}

/** A Temporal client's interceptors: while tracing runs, its workflow starts and signals carry the active trace. */
export const tracingClientInterceptors = () => ({ workflow: temporalClientInterceptors });
