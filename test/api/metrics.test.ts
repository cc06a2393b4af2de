import { expect } from 'chai';
import { stack } from '../helpers/stack';
import { createTenant } from '../helpers/factories';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { sampleSum, scrape } from '../helpers/prometheus';
import { withApp } from '../helpers/app-server';
import { apiMetrics } from '../../domain/platform/metrics';

/** The API's request durations for GET /api/v1/transactions/:transactionId answered 404, as its registry holds them. */
async function notFoundReads(): Promise<number> {
  const labels = { method: 'GET', route: '/api/v1/transactions/:transactionId', status: '404' };
  return sampleSum(await apiMetrics.metrics(), 'switchyard_http_request_duration_seconds_count', labels);
}

/** Serves one GET /api/v1/transactions/tx_doesnotexist from an app built with `metricsPort` as API_METRICS_PORT. */
async function readMissingTransaction(metricsPort: number | null, key: string): Promise<void> {
  const { deps } = stack().api;
  const telemetry = { ...deps.config.telemetry, metrics: { ...deps.config.telemetry.metrics, apiPort: metricsPort } };
  await withApp({ ...deps, config: { ...deps.config, telemetry } }, async (baseUrl) => {
    const res = await fetch(`${baseUrl}/api/v1/transactions/tx_doesnotexist`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).to.equal(404);
  });
}

describe('Prometheus metrics: the API and the worker each serve theirs', () => {
  it('moves the request, attempt and transaction counters of a charge, with bounded labels only', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const token = await cardToken(tenant);
    const { api, worker } = stack();
    const [apiBefore, workerBefore] = [await scrape(api.metricsUrl), await scrape(worker.metricsUrl)];

    const res = await charge(tenant, cardCharge(token));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('authorized');

    const [apiAfter, workerAfter] = [await scrape(api.metricsUrl), await scrape(worker.metricsUrl)];
    const request = { method: 'POST', route: '/api/v1/transactions', status: '201' };
    const requests = 'switchyard_http_request_duration_seconds_count';
    expect(sampleSum(apiAfter, requests, request) - sampleSum(apiBefore, requests, request)).to.equal(1);

    const attempt = {
      provider: 'provider_a',
      connector: connector.id,
      payment_method: 'credit_card',
      outcome: 'approved',
    };
    const attempts = 'switchyard_charge_attempts_total';
    expect(sampleSum(workerAfter, attempts, attempt) - sampleSum(workerBefore, attempts, attempt)).to.equal(1);
    const authorized = { status: 'authorized', payment_method: 'credit_card' };
    const moves = 'switchyard_transactions_total';
    expect(sampleSum(workerAfter, moves, authorized) - sampleSum(workerBefore, moves, authorized)).to.be.at.least(1);

    // The gauges read from the database and the Temporal SDK's own worker metrics are on the worker's endpoint.
    expect(workerAfter).to.match(/^switchyard_webhook_backlog\{stage="fan_out"\} \d+$/m);
    expect(workerAfter).to.match(/^switchyard_unknown_outcomes_awaiting_resolution \d+$/m);
    expect(workerAfter).to.match(/^temporal_\w+\{[^}]*activity_type="attemptCharge"/m);
    // Ids of a transaction never become labels.
    for (const text of [apiAfter, workerAfter]) expect(text).not.to.include(res.body.data.id);
  });

  it('serves the route template, never the path, for a request with an id in its path', async () => {
    const tenant = await createTenant();
    const { api } = stack();
    const res = await fetch(`${stack().url}/api/v1/transactions/tx_doesnotexist`, {
      headers: { authorization: `Bearer ${tenant.merchant_secret_key}` },
    });
    expect(res.status).to.equal(404);
    const text = await scrape(api.metricsUrl);
    expect(text).to.include('route="/api/v1/transactions/:transactionId"');
    expect(text).not.to.include('tx_doesnotexist');
  });

  it('records no request duration when the API serves no metrics (API_METRICS_PORT=off)', async () => {
    const tenant = await createTenant();
    const before = await notFoundReads();
    await readMissingTransaction(null, tenant.merchant_secret_key);
    expect(await notFoundReads()).to.equal(before);
    // The same request with the endpoint on is counted: the histogram above was the one to move.
    await readMissingTransaction(0, tenant.merchant_secret_key);
    expect(await notFoundReads()).to.equal(before + 1);
  });
});
