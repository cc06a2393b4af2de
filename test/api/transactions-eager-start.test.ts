/**
 * `npm start` runs the API and the worker in one process and hands the API the worker's connection, so charges
 * start eagerly (the first workflow task comes back in the start response). The rule: a charge through such an API
 * is decided like any other — the SDK refuses eager start on any other connection, so a wrong wiring fails here.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startApi, type RunningApi } from '../../api/server';
import { stack } from '../helpers/stack';
import { createTenant, type Tenant } from '../helpers/factories';
import { cardCharge, cardToken, cascade } from '../helpers/transactions';

describe('Charges started eagerly on the in-process worker', () => {
  let api: RunningApi;
  let tenant: Tenant;

  before(async () => {
    api = await startApi(stack().config, 0, { workerConnection: stack().worker.connection });
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
  });

  after(async () => {
    await api.stop();
  });

  it('a charge through an API on the worker connection is authorized (eager workflow start)', async () => {
    expect(api.deps.temporal.eager, 'the API builds its eager client on the worker connection').to.not.equal(undefined);
    const response = await fetch(`${api.url}/api/v1/transactions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.merchant_secret_key}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(cardCharge(await cardToken(tenant))),
    });
    const body = (await response.json()) as { data: { status: string } };
    expect(response.status, JSON.stringify(body)).to.equal(201);
    expect(body.data.status).to.equal('authorized');
  });
});
