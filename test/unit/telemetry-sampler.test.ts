/**
 * OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as the OpenTelemetry specification defines them: each named sampler
 * decides new traces and a caller's traces as the specification says, the argument is read by the traceidratio
 * samplers only, and an unknown sampler stops the process at startup, naming the allowed values.
 */
import { expect } from 'chai';
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Context } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { telemetryConfig, TRACE_SAMPLERS } from '../../domain/platform/telemetry-config';
import { samplerOf } from '../../domain/platform/tracing';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const callerWhoSampled = (sampled: boolean): Context =>
  trace.setSpanContext(ROOT_CONTEXT, {
    traceId: TRACE_ID,
    spanId: '00f067aa0ba902b7',
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
  });

/** Whether the sampler the environment configures records a new trace, and a caller's sampled and unsampled ones. */
function decisions(env: NodeJS.ProcessEnv): { newTrace: boolean; sampledCaller: boolean; unsampledCaller: boolean } {
  const sampler = samplerOf(telemetryConfig(env, 'production').traces);
  const records = (parent: Context) =>
    sampler.shouldSample(parent, TRACE_ID, 'GET /x', SpanKind.SERVER, {}, []).decision ===
    SamplingDecision.RECORD_AND_SAMPLED;
  return {
    newTrace: records(ROOT_CONTEXT),
    sampledCaller: records(callerWhoSampled(true)),
    unsampledCaller: records(callerWhoSampled(false)),
  };
}

describe('OTEL_TRACES_SAMPLER: the sampler the OpenTelemetry specification names', () => {
  it('defaults to parentbased_always_on: every new trace, and a caller decides its own', () => {
    expect(telemetryConfig({}, 'production').traces.sampler).to.equal('parentbased_always_on');
    expect(decisions({})).to.deep.equal({ newTrace: true, sampledCaller: true, unsampledCaller: false });
  });

  it('always_on records every trace, whatever the caller decided', () => {
    const env = { OTEL_TRACES_SAMPLER: 'always_on' };
    expect(decisions(env)).to.deep.equal({ newTrace: true, sampledCaller: true, unsampledCaller: true });
  });

  it('always_off records no trace, whatever the caller decided', () => {
    const env = { OTEL_TRACES_SAMPLER: 'always_off' };
    expect(decisions(env)).to.deep.equal({ newTrace: false, sampledCaller: false, unsampledCaller: false });
  });

  it("traceidratio keeps the argument's share by trace id and ignores the caller", () => {
    const none = { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' };
    expect(decisions(none)).to.deep.equal({ newTrace: false, sampledCaller: false, unsampledCaller: false });
    const all = { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' };
    expect(decisions(all)).to.deep.equal({ newTrace: true, sampledCaller: true, unsampledCaller: true });
  });

  it('parentbased_always_on records every new trace and follows the caller', () => {
    const env = { OTEL_TRACES_SAMPLER: 'parentbased_always_on' };
    expect(decisions(env)).to.deep.equal({ newTrace: true, sampledCaller: true, unsampledCaller: false });
  });

  it('parentbased_always_off records no new trace and follows the caller', () => {
    const env = { OTEL_TRACES_SAMPLER: 'parentbased_always_off' };
    expect(decisions(env)).to.deep.equal({ newTrace: false, sampledCaller: true, unsampledCaller: false });
  });

  it("parentbased_traceidratio keeps the argument's share of new traces and follows the caller", () => {
    const none = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' };
    expect(decisions(none)).to.deep.equal({ newTrace: false, sampledCaller: true, unsampledCaller: false });
    const tenth = telemetryConfig(
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
      'production',
    );
    expect(tenth.traces).to.include({ sampler: 'parentbased_traceidratio', sampleRatio: 0.1 });
  });

  it('reads OTEL_TRACES_SAMPLER_ARG for the traceidratio samplers only, defaulting to 1, and refuses one outside [0, 1]', () => {
    expect(decisions({ OTEL_TRACES_SAMPLER: 'traceidratio' }).newTrace).to.equal(true);
    const ignored = { OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: 'not a number' };
    expect(decisions(ignored).newTrace).to.equal(true);
    const wrong = { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' };
    expect(() => telemetryConfig(wrong, 'production')).to.throw(/OTEL_TRACES_SAMPLER_ARG/);
  });

  it('refuses an unknown sampler at startup, naming the allowed values', () => {
    for (const value of ['jaeger_remote', 'parentbased_ratio', 'on']) {
      expect(() => telemetryConfig({ OTEL_TRACES_SAMPLER: value }, 'production')).to.throw(
        new RegExp(`OTEL_TRACES_SAMPLER must be one of ${TRACE_SAMPLERS.join(', ')}`),
      );
    }
  });
});
