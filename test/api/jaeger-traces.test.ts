/**
 * What an operator sees in Jaeger after `npm start`: a charge is one trace there, from the API's server span through
 * the workflow start and run and each activity to the provider's HTTP call. Against the real Jaeger binary
 * (scripts/lib/jaeger.ts, the one `npm start` runs) with the test stack exporting over OTLP/HTTP, read back through
 * Jaeger's query API, as its UI reads it.
 */
import { expect } from 'chai';
import { startJaeger, type RunningJaeger } from '../../scripts/lib/jaeger';
import { startTracing, type RunningTracing } from '../../domain/platform/tracing';
import { createTenant } from '../helpers/factories';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { freePort } from '../helpers/ports';
import { waitUntil } from '../helpers/webhooks';

interface JaegerSpan {
  spanID: string;
  operationName: string;
  references: { refType: string; spanID: string }[];
  tags: { key: string; value: unknown }[];
}

describe('Jaeger: a charge is one trace, from the API to the provider call', function () {
  this.timeout(600_000);
  // A process is one service: its first start names it (tracing.test.ts starts this process's tracing with it too).
  const service = 'switchyard-test';
  let jaeger: RunningJaeger | null;
  let tracing: RunningTracing;

  before(async function () {
    const [uiPort, otlpPort, queryGrpcPort, otlpGrpcPort] = await Promise.all([1, 2, 3, 4].map(() => freePort()));
    jaeger = await startJaeger({ uiPort, otlpPort, queryGrpcPort, otlpGrpcPort });
    if (!jaeger) {
      console.log('      skipped: no Jaeger binary and no Go toolchain to build it (scripts/lib/jaeger.ts)');
      this.skip();
    }
    tracing = startTracing(
      {
        otlpTracesUrl: `${jaeger.otlpEndpoint}/v1/traces`,
        sampler: 'parentbased_always_on',
        sampleRatio: 1,
        serviceName: service,
      },
      'switchyard',
    )!;
  });
  after(async () => {
    await tracing?.stop();
    await jaeger?.stop();
  });

  /** The trace holding the request's server span, as Jaeger's API returns it (undefined until it is there). */
  async function traceOfRequest(requestId: string): Promise<JaegerSpan[] | undefined> {
    const query = new URLSearchParams({ service, tags: JSON.stringify({ 'switchyard.request_id': requestId }) });
    const res = await fetch(`${jaeger!.uiUrl}/api/traces?${query.toString()}`);
    if (!res.ok) return undefined;
    const { data } = (await res.json()) as { data: { spans: JaegerSpan[] }[] };
    return data[0]?.spans;
  }

  it("shows the charge's spans with their parent chain: API, workflow start and run, activity, provider call", async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const token = await cardToken(tenant);
    const res = await charge(tenant, cardCharge(token));
    expect(res.status, res.text).to.equal(201);
    const requestId = res.headers.get('x-request-id')!;
    await tracing.flush();

    const providerCall = (spans: JaegerSpan[]) => {
      const attempt = spans.find((span) => span.operationName === 'RunActivity:attemptCharge');
      return attempt && spans.find((span) => parentOf(span) === attempt.spanID && tag(span, 'url.full'));
    };
    // Jaeger batches what it receives: the whole trace is there once the provider call, the deepest span, is.
    const spans = await waitUntil(
      async () => {
        const found = await traceOfRequest(requestId);
        return found && providerCall(found) ? found : undefined;
      },
      30_000,
      `Jaeger showing the trace of ${requestId} down to the provider call (GET /api/traces?service=${service})`,
    );

    const byId = new Map(spans.map((span) => [span.spanID, span]));
    const chain = (span: JaegerSpan): string[] => {
      const parent = byId.get(parentOf(span) ?? '');
      return [span.operationName, ...(parent ? chain(parent) : [])];
    };
    // From the provider call up to the API's span, these in this order (StartActivity and the like in between).
    const levels = [
      'RunActivity:attemptCharge',
      'RunWorkflow:transactionWorkflow',
      'StartWorkflow:transactionWorkflow',
      'POST /api/v1/transactions',
    ];
    // (Above the API's span: this test's own fetch, whose traceparent the API continued.)
    const ancestry = chain(providerCall(spans)!);
    expect(ancestry.filter((name) => levels.includes(name))).to.deep.equal(levels);
    const root = spans.find((span) => span.operationName === 'POST /api/v1/transactions')!;
    expect(tag(root, 'switchyard.merchant_id')).to.equal(tenant.merchant_id);
    expect(spans.map((span) => span.operationName)).to.include('RunActivity:finalizeTransaction');
  });
});

const parentOf = (span: JaegerSpan) => span.references.find((ref) => ref.refType === 'CHILD_OF')?.spanID;
const tag = (span: JaegerSpan, key: string) => span.tags.find((t) => t.key === key)?.value;
