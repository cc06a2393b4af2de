import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { stack } from '../helpers/stack';
import { createTenant, customerInput, uniqueEmail } from '../helpers/factories';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { CARDS } from '../helpers/vault';
import { api } from '../helpers/http';
import { createConfig, startReceiver, waitUntil } from '../helpers/webhooks';
import { startTracing, type RunningTracing } from '../../domain/platform/tracing';
import { createLogger } from '../../domain/platform/logger';
import { withApp } from '../helpers/app-server';

/** The OpenTelemetry SDK's own in-memory exporter stands in for the OTLP collector. */
describe('Traces: one per request, from the API through Temporal to the provider', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: RunningTracing;
  before(() => {
    tracing = startTracing(
      { otlpTracesUrl: null, sampler: 'parentbased_always_on', sampleRatio: 1, serviceName: 'switchyard-test' },
      'switchyard',
      exporter,
    )!;
  });
  after(() => tracing.stop());
  beforeEach(() => exporter.reset());

  const spansOfRequest = (requestId: string): { root: ReadableSpan; spans: ReadableSpan[] } => {
    const all = exporter.getFinishedSpans();
    const root = all.find((span) => span.attributes['switchyard.request_id'] === requestId);
    expect(root, `a server span for ${requestId}`).to.exist;
    return { root: root!, spans: all.filter((span) => span.spanContext().traceId === root!.spanContext().traceId) };
  };

  it('gives a charge one trace: the API span, the workflow start and run, each activity and the provider call', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const token = await cardToken(tenant);
    const res = await charge(tenant, cardCharge(token));
    expect(res.status, res.text).to.equal(201);
    await tracing.flush();

    const { root, spans } = spansOfRequest(res.headers.get('x-request-id')!);
    expect(root.name).to.equal('POST /api/v1/transactions');
    const names = spans.map((span) => span.name);
    expect(names).to.include.members([
      'StartWorkflow:transactionWorkflow',
      'RunWorkflow:transactionWorkflow',
      'RunActivity:attemptCharge',
      'RunActivity:finalizeTransaction',
    ]);
    const attempt = spans.find((span) => span.name === 'RunActivity:attemptCharge')!;
    expect(attempt.attributes).to.include({
      'switchyard.transaction_id': res.body.data.id,
      'switchyard.merchant_id': tenant.merchant_id,
      'switchyard.provider': 'provider_a',
      'switchyard.attempt_number': 1,
      'switchyard.outcome': 'approved',
    });
    // The provider's HTTP call, a child of the attempt's activity, names the sandbox's origin only.
    const call = spans.find(
      (span) => span.parentSpanId === attempt.spanContext().spanId && span.attributes['url.full'],
    );
    expect(call, 'the provider call span').to.exist;
    expect(call!.attributes['url.full']).to.equal(new URL(stack().sandboxUrl).origin);
  });

  it("names the service on the worker's workflow and activity spans, as on the API's, whenever tracing started", async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const token = await cardToken(tenant);
    const res = await charge(tenant, cardCharge(token));
    expect(res.status, res.text).to.equal(201);
    await tracing.flush();

    // The test stack's worker started before this tracing did: the service name is still the running tracing's.
    const { root, spans } = spansOfRequest(res.headers.get('x-request-id')!);
    for (const name of [root.name, 'RunWorkflow:transactionWorkflow', 'RunActivity:attemptCharge']) {
      const span = spans.find((candidate) => candidate.name === name);
      expect(span?.resource.attributes['service.name'], name).to.equal('switchyard-test');
    }
  });

  it("names the merchant on the API's server span once the request's key is authenticated", async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const token = await cardToken(tenant);
    const res = await charge(tenant, cardCharge(token));
    expect(res.status, res.text).to.equal(201);
    await tracing.flush();

    const { root } = spansOfRequest(res.headers.get('x-request-id')!);
    expect(root.attributes['switchyard.merchant_id']).to.equal(tenant.merchant_id);
  });

  it("carries the transaction's trace into its event's webhook deliveries: the direct first attempt and the workflow's retry", async function () {
    this.timeout(60_000);
    const receiver = await startReceiver();
    try {
      // The first attempt fails, so the second is made by the delivery workflow (its first retry is due in ~5 s).
      receiver.respond('/hook', (_request, count) => ({ status: count === 1 ? 503 : 200 }));
      const tenant = await createTenant();
      await cascade(tenant, ['provider_a']);
      await createConfig(tenant, { url: receiver.url('/hook'), event_filter: ['transaction.authorized'] });
      const token = await cardToken(tenant);
      const res = await charge(tenant, cardCharge(token));
      expect(res.status, res.text).to.equal(201);
      // A delivery's span ends once its attempt is recorded, after the receiver saw the POST.
      const inTrace = () => {
        const { spans } = spansOfRequest(res.headers.get('x-request-id')!);
        return { spans, deliveries: spans.filter((span) => span.name === 'webhook delivery') };
      };
      await waitUntil(
        async () => (await tracing.flush(), inTrace().deliveries.length >= 2),
        30_000,
        'two webhook delivery spans in the transaction trace',
      );
      const { spans, deliveries } = inTrace();
      expect(deliveries.map((span) => span.attributes['switchyard.attempt_number'])).to.have.members([1, 2]);
      for (const delivery of deliveries) {
        expect(delivery.attributes).to.include({
          'switchyard.merchant_id': tenant.merchant_id,
          'switchyard.event_type': 'transaction.authorized',
        });
        // Its POST is its child and names the receiver's origin only, never the endpoint's path.
        const post = spans.find(
          (span) => span.parentSpanId === delivery.spanContext().spanId && span.attributes['url.full'],
        );
        expect(post, 'the POST span').to.exist;
        expect(post!.attributes['url.full']).to.equal(new URL(receiver.url('/hook')).origin);
      }
    } finally {
      await receiver.close();
    }
  });

  it('records no card number, CVC, e-mail, document number or credential in any span', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const email = uniqueEmail('traced');
    const document = '52998224725';
    const customer = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      headers: { 'idempotency-key': randomUUID() },
      body: customerInput({ email, document_type: 'cpf', document_number: document }),
    });
    expect(customer.status, customer.text).to.equal(201);
    const token = await cardToken(tenant, CARDS.mastercard);
    const res = await charge(tenant, cardCharge(token, { customer_id: customer.body.id ?? customer.body.data.id }));
    expect(res.status, res.text).to.equal(201);
    await tracing.flush();

    const spans = exporter.getFinishedSpans();
    expect(spans.some((span) => span.name === 'RunActivity:attemptCharge')).to.equal(true);
    const text = JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events]));
    for (const secret of [CARDS.mastercard.number, email, document, ...Object.values(connector.credentials)])
      expect(text).not.to.include(secret);
    for (const span of spans) {
      expect(Object.keys(span.attributes).join(' ')).not.to.match(/card|cvc|email|document|credential|secret/i);
      expect(Object.values(span.attributes)).not.to.include(CARDS.mastercard.cvc);
    }
  });

  it("writes the request's trace id on its log line, and the error envelope's request_id is in that trace", async () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    await withApp({ ...stack().api.deps, logger }, async (baseUrl) => {
      const tenant = await createTenant();
      const res = await fetch(`${baseUrl}/api/v1/transactions/tx_doesnotexist`, {
        headers: { authorization: `Bearer ${tenant.merchant_secret_key}` },
      });
      expect(res.status).to.equal(404);
      const { request_id: requestId } = ((await res.json()) as { error: { request_id: string } }).error;
      await tracing.flush();
      const { root } = spansOfRequest(requestId);
      const line = lines
        .map((l) => JSON.parse(l))
        .find((entry) => entry.request_id === requestId && entry.msg === 'request');
      expect(line, 'the request log line').to.exist;
      expect(line.trace_id).to.equal(root.spanContext().traceId);
    });
  });
});
