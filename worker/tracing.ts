/**
 * The worker's half of a trace (domain/platform/tracing.ts): the Temporal SDK's OpenTelemetry interceptors continue
 * the trace the API's workflow start carried in its headers — a span for the workflow run, one per activity (the
 * provider's HTTP call is a child of its activity's) — and workflow spans leave the sandbox through a sink.
 */
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptors, InjectedSinks } from '@temporalio/worker';
import { workflowSpanProcessor, workflowSpanResource } from '../domain/platform/tracing';

/** Bundled with the workflows (bundleWorkflowCode's workflowInterceptorModules): the workflow-side interceptors. */
export const WORKFLOW_INTERCEPTOR_MODULES = [
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

export function activityTracingInterceptor(ctx: Context): ActivityInterceptors {
  return {
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  };
}

/** The sink workflow spans leave the sandbox through (a no-op while tracing is off). */
export function workflowSpanSinks(): InjectedSinks<OpenTelemetrySinks> {
  return { exporter: makeWorkflowExporter(workflowSpanProcessor, workflowSpanResource()) };
}

/** A Temporal client's interceptors: its workflow starts and signals carry the active trace in their headers. */
export const tracingClientInterceptors = () => ({ workflow: [new OpenTelemetryWorkflowClientInterceptor()] });
