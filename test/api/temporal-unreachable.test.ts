/**
 * Temporal unreachable: requests that start or wait for a workflow answer the documented 502
 * external_service_error (retryable) — never a 500 — and change nothing; a charge whose answer was lost is found
 * again by its retry. Each test runs a second API that reaches the shared Temporal dev server through a TCP
 * proxy, then closes the proxy (the stack's worker keeps its own direct connection).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, customerInput } from '../helpers/factories';
import { sellableOffer, inFuture, HOUR } from '../helpers/checkout';
import { rows } from '../helpers/db';
import { accountOf, ledger } from '../helpers/sandbox';
import { stack, withWorkerDown } from '../helpers/stack';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { expectError } from '../helpers/envelope';

const SLOW_CARD = { number: '4000000000000507', cvc: '123', brand: 'visa' };

describe('When Temporal is unreachable', () => {
  let proxy: TcpProxy;
  let app: RunningApi;

  beforeEach(async () => {
    const { config } = stack();
    proxy = await startTcpProxy(Number(config.temporal.address.split(':').pop()));
    app = await startApi({ ...config, temporal: { ...config.temporal, address: `127.0.0.1:${proxy.port}` } }, 0);
  });

  afterEach(async () => {
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
    const reachable = await api.post('/checkout-sessions', {
      key: tenant.merchant_secret_key,
      body: session,
      baseUrl: app.url,
    });
    expect(reachable.status, reachable.text).to.equal(201);

    await proxy.close();
    const idempotencyKey = randomUUID();
    const [checkout, charged] = await Promise.all([
      api.post('/checkout-sessions', {
        key: tenant.merchant_secret_key,
        body: { ...session, customer: customerInput() },
        baseUrl: app.url,
      }),
      api.post('/transactions', {
        key: tenant.merchant_secret_key,
        body: cardCharge(token),
        headers: { 'idempotency-key': idempotencyKey },
        baseUrl: app.url,
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
    const retried = await api.post('/transactions', {
      key: tenant.merchant_secret_key,
      body: cardCharge(token),
      headers: { 'idempotency-key': idempotencyKey },
    });
    expect(retried.status, retried.text).to.equal(201);
    expect(retried.body.data.status).to.equal('authorized');
  });

  it('a PATCH pushing expires_at out needs no Temporal: 200, the new time stored, the expiry workflow still running', async function () {
    this.timeout(90_000);
    const tenant = await createTenant();
    const { offer } = await sellableOffer(tenant);
    const created = await api.post('/checkout-sessions', {
      key: tenant.merchant_secret_key,
      body: { offer_id: offer.id, customer: customerInput(), expires_at: inFuture(HOUR) },
      baseUrl: app.url,
    });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.data.id;

    await proxy.close();
    const later = inFuture(2 * HOUR);
    const patched = await api.patch(`/checkout-sessions/${id}`, {
      key: tenant.merchant_secret_key,
      body: { expires_at: later },
      baseUrl: app.url,
    });

    expect(patched.status, patched.text).to.equal(200);
    const [stored] = await rows('select expires_at from checkout_sessions where id = ?', [id]);
    expect(new Date(stored.expires_at).getTime()).to.equal(new Date(later).getTime());
    // The workflow started at creation wakes at its first deadline, re-reads the row and sleeps on to this one.
    const workflow = stack().api.deps.temporal.client.workflow.getHandle(`checkout-expiry-${id}`);
    expect((await workflow.describe()).status.name).to.equal('RUNNING');
  });

  it('a PATCH giving a session its first expires_at answers 502 external_service_error and stores no expiry', async function () {
    this.timeout(90_000);
    const tenant = await createTenant();
    const { offer } = await sellableOffer(tenant);
    const created = await api.post('/checkout-sessions', {
      key: tenant.merchant_secret_key,
      body: { offer_id: offer.id, customer: customerInput() },
      baseUrl: app.url,
    });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.data.id;

    await proxy.close();
    const patched = await api.patch(`/checkout-sessions/${id}`, {
      key: tenant.merchant_secret_key,
      body: { expires_at: inFuture(HOUR) },
      baseUrl: app.url,
    });

    expectError(patched, 502, 'external_service_error', 'WORKFLOW_SERVICE_UNAVAILABLE');
    expect(await rows('select expires_at from checkout_sessions where id = ?', [id])).to.deep.equal([
      { expires_at: null },
    ]);
  });

  it('a charge whose answer was lost (Temporal cut while the API waited) is found again by its retry: same transaction, one provider charge', async function () {
    this.timeout(90_000);
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const token = await cardToken(tenant, SLOW_CARD);
    const idempotencyKey = randomUUID();
    const body = cardCharge(token);

    const lost = api.post('/transactions', {
      key: tenant.merchant_secret_key,
      body,
      headers: { 'idempotency-key': idempotencyKey },
      baseUrl: app.url,
    });
    // The workflow started and is calling the provider (slow card, ~2 s) when the API loses Temporal.
    for (
      let i = 0;
      i < 300 && (await rows('select 1 from transactions where merchant_id = ?', [tenant.merchant_id])).length === 0;
      i += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await proxy.close();
    const first = await lost;
    const error = expectError(first, 502, 'external_service_error', 'CHARGE_UNAVAILABLE');
    const transactionId = error.details.transaction_id;

    const retried = await api.post('/transactions', {
      key: tenant.merchant_secret_key,
      body,
      headers: { 'idempotency-key': idempotencyKey },
    });
    expect(retried.status, retried.text).to.equal(201);
    expect(retried.body.data.id).to.equal(transactionId);
    expect(retried.body.data.status).to.equal('authorized');
    const charges = (
      await ledger({ provider: 'provider_a', account: await accountOf('provider_a', connector.credentials) })
    ).filter((e) => e.operation === 'authorize' && !e.replayed);
    expect(charges.map((e) => e.reference)).to.deep.equal([transactionId]);
    expect(await rows('select id from transactions where merchant_id = ?', [tenant.merchant_id])).to.have.length(1);
  });

  it('a refund whose answer was lost is found again by its retry with the same Idempotency-Key: one refund, never two', async function () {
    this.timeout(90_000);
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const charged = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(charged.status, charged.text).to.equal(201);
    const tx = charged.body.data;
    const idempotencyKey = randomUUID();
    const refund = {
      key: tenant.merchant_secret_key,
      body: { amount: 500 },
      headers: { 'idempotency-key': idempotencyKey },
    };

    // No worker: the refund workflow starts but cannot progress, so the API is still waiting when Temporal goes.
    const first = await withWorkerDown(async () => {
      const lost = api.post(`/transactions/${tx.id}/refunds`, { ...refund, baseUrl: app.url });
      const query = `WorkflowType = 'transactionOperationWorkflow' AND MerchantId = '${tenant.merchant_id}'`;
      for (let i = 0; i < 200 && (await stack().api.deps.temporal.client.workflow.count(query)).count === 0; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await proxy.close();
      return lost;
    });
    expectError(first, 502, 'external_service_error', 'OPERATION_UNAVAILABLE');

    const retried = await api.post(`/transactions/${tx.id}/refunds`, refund);
    expect(retried.status, retried.text).to.equal(201);
    expect(retried.body.data).to.include({ amount: 500, status: 'succeeded' });
    const refunds = await api.get(`/transactions/${tx.id}/refunds`, { key: tenant.merchant_secret_key });
    expect(refunds.body.data.map((r: any) => r.id)).to.deep.equal([retried.body.data.id]);
    const atProvider = (
      await ledger({ provider: 'provider_a', account: await accountOf('provider_a', connector.credentials) })
    ).filter((e) => e.operation === 'refund' && !e.replayed);
    expect(atProvider).to.have.length(1);
    const read = await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key });
    expect(read.body.data).to.include({ status: 'partially_refunded', amount_refunded: 500 });
  });
});
