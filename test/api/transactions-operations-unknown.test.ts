/**
 * Unknown is unknown for captures, voids and refunds: an answer that is not definitive (a 5xx after the provider
 * did the work, a lookup that cannot tell yet) leaves the capture capture_pending and the refund pending, and
 * the operation is looked up at the provider under its own idempotency key until it is settled — never repeated,
 * never reported as refused while the money may have moved.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectWrapped } from '../helpers/envelope';
import { accountOf, control, ledger } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  waitForTransaction,
  type CascadeConnector,
} from '../helpers/transactions';

describe('Captures, voids and refunds without a definitive answer', () => {
  let app: RunningApi;
  let tenant: Tenant;
  let connector: CascadeConnector;
  before(async () => {
    // A short wait, so the answer shows the operation while it is still being looked up.
    app = await startApi({ ...stack().config, workflowWaitMs: 1_000 }, 0);
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_a']);
  });
  after(async () => {
    await app?.stop();
  });

  const post = (path: string, body: Record<string, unknown> = {}, baseUrl?: string) =>
    api.post(path, {
      key: tenant.merchant_secret_key,
      headers: { 'idempotency-key': randomUUID() },
      body,
      ...(baseUrl ? { baseUrl } : {}),
    });
  const force = async (operation: 'capture' | 'void' | 'refund' | 'lookup', scenario: string) => {
    const res = await control('POST', '/overrides', {
      provider: 'provider_a',
      credentials: connector.credentials,
      operation,
      scenario,
      times: 1,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  };
  const preAuthorized = async () =>
    expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant), { capture: false })), 201);
  const operationsAtProvider = async (operation: string) =>
    (await ledger({ provider: 'provider_a', account: await accountOf('provider_a', connector.credentials) })).filter(
      (e) => e.operation === operation && e.outcome === 'approved' && !e.replayed,
    );

  it('a capture the provider made but answered 5xx is found by its key: authorized, captured once', async () => {
    const tx = await preAuthorized();
    const before = (await operationsAtProvider('capture')).length;
    await force('capture', 'approved_server_error');
    const captured = expectWrapped(await post(`/transactions/${tx.id}/capture`), 200);
    expect(captured).to.include({ status: 'authorized', amount_captured: 1500 });
    expect((await operationsAtProvider('capture')).length - before).to.equal(1);
  });

  it('a capture whose lookup cannot tell yet stays capture_pending (202, no second capture or void allowed), then settles', async () => {
    const tx = await preAuthorized();
    await force('capture', 'approved_server_error');
    await force('lookup', 'processing_error');
    const pending = expectWrapped(await post(`/transactions/${tx.id}/capture`, {}, app.url), 202);
    expect(pending.status).to.equal('capture_pending');
    const again = await post(`/transactions/${tx.id}/void`);
    expect(again.status, again.text).to.equal(409);
    const settled = await waitForTransaction(tenant, tx.id, (t) => t.status !== 'capture_pending', 30_000);
    expect(settled).to.include({ status: 'authorized', amount_captured: 1500 });
  });

  it('a capture the provider never processed (5xx, nothing under its key) returns to pre_authorized', async () => {
    const tx = await preAuthorized();
    await force('capture', 'processing_error');
    const res = expectWrapped(await post(`/transactions/${tx.id}/capture`), 200);
    expect(res).to.include({ status: 'pre_authorized', amount_captured: 0 });
    // Nothing is in doubt any more: the transaction can be captured again.
    expect(expectWrapped(await post(`/transactions/${tx.id}/capture`), 200).status).to.equal('authorized');
  });

  it('a refund the provider made but answered 5xx is found by its key: succeeded, refunded once', async () => {
    const tx = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant))), 201);
    await force('refund', 'approved_server_error');
    const refund = expectWrapped(await post(`/transactions/${tx.id}/refunds`, { amount: 500 }), 201);
    expect(refund.status).to.equal('succeeded');
    const now = await waitForTransaction(tenant, tx.id, () => true);
    expect(now).to.include({ status: 'partially_refunded', amount_refunded: 500 });
  });

  it('a refund the provider never processed fails (never pending forever) and the transaction returns to authorized', async () => {
    const tx = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant))), 201);
    await force('refund', 'processing_error');
    const refund = expectWrapped(await post(`/transactions/${tx.id}/refunds`, { amount: 500 }), 201);
    expect(refund.status).to.equal('failed');
    expect((await waitForTransaction(tenant, tx.id, () => true)).status).to.equal('authorized');
  });
});
