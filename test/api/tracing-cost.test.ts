/**
 * What tracing costs where it records nothing: while it is off, a Temporal client composes no tracing interceptor;
 * while it runs, a request its sampler drops still names its trace on its log lines, so the API's and the worker's
 * lines of one charge can be joined even when no collector holds the trace.
 */
import { expect } from 'chai';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { stack } from '../helpers/stack';
import { createTenant } from '../helpers/factories';
import { startTracing } from '../../domain/platform/tracing';
import { createLogger } from '../../domain/platform/logger';
import { withApp } from '../helpers/app-server';
import type { TraceSamplerName } from '../../domain/platform/telemetry-config';

const startInMemoryTracing = (sampler: TraceSamplerName) =>
  startTracing(
    { otlpTracesUrl: null, sampler, sampleRatio: 1, serviceName: 'switchyard-test' },
    'switchyard',
    new InMemorySpanExporter(),
  )!;

describe('Tracing: what it costs where it records nothing', () => {
  it("gives the API's Temporal client no tracing interceptor while tracing is off, and one while it runs", async () => {
    const interceptors = () => stack().api.deps.temporal.client.workflow.options.interceptors;
    expect(interceptors()).to.deep.equal([]);
    const tracing = startInMemoryTracing('parentbased_always_on');
    try {
      expect(interceptors()).to.have.length(1);
    } finally {
      await tracing.stop();
    }
    expect(interceptors()).to.deep.equal([]);
  });

  it('writes the trace id on the log line of a request whose trace the sampler drops', async () => {
    const tracing = startInMemoryTracing('always_off');
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    try {
      await withApp({ ...stack().api.deps, logger }, async (baseUrl) => {
        const tenant = await createTenant();
        const res = await fetch(`${baseUrl}/api/v1/transactions/tx_doesnotexist`, {
          headers: { authorization: `Bearer ${tenant.merchant_secret_key}` },
        });
        expect(res.status).to.equal(404);
        const requestId = res.headers.get('x-request-id');
        const line = lines
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((entry) => entry.request_id === requestId && entry.msg === 'request');
        expect(line, 'the request log line').to.exist;
        expect(line)
          .to.have.property('trace_id')
          .that.matches(/^[0-9a-f]{32}$/);
      });
    } finally {
      await tracing.stop();
    }
  });
});
