/**
 * Work the API accepted is never answered with a 5xx: when a charge, capture, void or refund outlives the request's
 * wait (WORKFLOW_WAIT_MS), the answer is the resource as it stands — 201 pending transaction, 202 transaction with
 * the capture/void in progress, 201 pending refund — and its outcome follows (GET, webhooks).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectWrapped } from '../helpers/envelope';
import { control } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  override,
  waitForTransaction,
  type CascadeConnector,
} from '../helpers/transactions';

/** The sandbox answers a `slow` call after 2 s: four times this API's wait. */
const WAIT_MS = 500;

describe('Accepted work outliving the wait', () => {
  let app: RunningApi;
  let tenant: Tenant;
  let connector: CascadeConnector;
  before(async () => {
    app = await startApi({ ...stack().config, workflowWaitMs: WAIT_MS }, 0);
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_a']);
  });
  after(async () => {
    await app?.stop();
  });

  /** Sent to the API whose wait is WAIT_MS (setup charges go to the stack's API, which waits as configured). */
  const post = (path: string, body: Record<string, unknown>) =>
    api.post(path, {
      key: tenant.merchant_secret_key,
      headers: { 'idempotency-key': randomUUID() },
      body,
      baseUrl: app.url,
    });
  /** The next capture/void/refund of this connector's account answers after the sandbox's slow delay. */
  const slowOperation = async (operation: 'capture' | 'void' | 'refund') => {
    const res = await control('POST', '/overrides', {
      provider: 'provider_a',
      credentials: connector.credentials,
      operation,
      scenario: 'slow',
      times: 1,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  };

  it('POST /transactions answers 201 with the pending transaction when the charge outlives the wait, never 504', async () => {
    await override(connector, 'slow', 1);
    const res = await post('/transactions', cardCharge(await cardToken(tenant)));
    const tx = expectWrapped(res, 201);
    expect(tx.status).to.equal('pending');
    expect((await waitForTransaction(tenant, tx.id, (t) => t.status !== 'pending')).status).to.equal('authorized');
  });

  it('a capture that outlives the wait answers 202 with the transaction capture_pending, then settles authorized', async () => {
    const tx = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant), { capture: false })), 201);
    expect(tx.status).to.equal('pre_authorized');
    await slowOperation('capture');
    const res = await post(`/transactions/${tx.id}/capture`, {});
    expect(expectWrapped(res, 202).status).to.equal('capture_pending');
    expect((await waitForTransaction(tenant, tx.id, (t) => t.status !== 'capture_pending')).status).to.equal(
      'authorized',
    );
  });

  it('a void that outlives the wait answers 202 with the transaction, then settles voided', async () => {
    const tx = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant), { capture: false })), 201);
    await slowOperation('void');
    const res = await post(`/transactions/${tx.id}/void`, {});
    expect(expectWrapped(res, 202).status).to.equal('pre_authorized');
    expect((await waitForTransaction(tenant, tx.id, (t) => t.status !== 'pre_authorized')).status).to.equal('voided');
  });

  it('a refund that outlives the wait answers 201 with the pending refund, then settles succeeded', async () => {
    const tx = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant))), 201);
    expect(tx.status).to.equal('authorized');
    await slowOperation('refund');
    const refund = expectWrapped(await post(`/transactions/${tx.id}/refunds`, { amount: 500 }), 201);
    expect(refund.status).to.equal('pending');
    expect((await waitForTransaction(tenant, tx.id, (t) => t.status !== 'refund_pending')).status).to.equal(
      'partially_refunded',
    );
  });
});
