/**
 * Temporal unreachable: requests that start or wait for a workflow answer the documented 502
 * external_service_error (retryable) — never a 500 — and change nothing. A second API reaches the shared
 * Temporal dev server through a TCP proxy that the test then closes.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, customerInput } from '../helpers/factories';
import { sellableOffer, inFuture, HOUR } from '../helpers/checkout';
import { rows } from '../helpers/db';
import { stack } from '../helpers/stack';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { cardCharge, cardToken, cascade } from '../helpers/transactions';
import { expectError } from '../helpers/envelope';

describe('When Temporal is unreachable', () => {
  let proxy: TcpProxy;
  let app: RunningApi;

  before(async () => {
    const { config } = stack();
    const port = Number(config.temporal.address.split(':').pop());
    proxy = await startTcpProxy(port);
    app = await startApi({ ...config, temporal: { ...config.temporal, address: `127.0.0.1:${proxy.port}` } }, 0);
  });

  after(async () => {
    await app?.stop();
    await proxy?.close();
  });

  it('a checkout session with expires_at and a charge answer 502 external_service_error and store nothing', async function () {
    // The Temporal client retries an unreachable server for ~20 s before giving up.
    this.timeout(90_000);
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const { offer } = await sellableOffer(tenant);
    const token = await cardToken(tenant);
    const session = { offer_id: offer.id, customer: customerInput(), expires_at: inFuture(HOUR) };
    const reachable = await api.post('/checkout-sessions', { key: tenant.merchant_secret_key, body: session, baseUrl: app.url });
    expect(reachable.status, reachable.text).to.equal(201);

    await proxy.close();
    const idempotencyKey = randomUUID();
    const [checkout, charged] = await Promise.all([
      api.post('/checkout-sessions', { key: tenant.merchant_secret_key, body: { ...session, customer: customerInput() }, baseUrl: app.url }),
      api.post('/transactions', {
        key: tenant.merchant_secret_key, body: cardCharge(token), headers: { 'idempotency-key': idempotencyKey }, baseUrl: app.url,
      }),
    ]);

    expectError(checkout, 502, 'external_service_error', 'WORKFLOW_SERVICE_UNAVAILABLE');
    expectError(charged, 502, 'external_service_error', 'CHARGE_UNAVAILABLE');

    // Nothing changed: only the first session exists, no transaction or order, the token is still unused, and
    // the idempotency key is free — the same request succeeds through the stack's own API.
    const sessions = await rows('select id from checkout_sessions where merchant_id = ?', [tenant.merchant_id]);
    expect(sessions.map((s) => s.id)).to.deep.equal([reachable.body.data.id]);
    expect(await rows('select id from transactions where merchant_id = ?', [tenant.merchant_id])).to.deep.equal([]);
    expect(await rows('select id from orders where merchant_id = ?', [tenant.merchant_id])).to.deep.equal([]);
    const retried = await api.post('/transactions', { key: tenant.merchant_secret_key, body: cardCharge(token), headers: { 'idempotency-key': idempotencyKey } });
    expect(retried.status, retried.text).to.equal(201);
    expect(retried.body.data.status).to.equal('authorized');
  });
});
