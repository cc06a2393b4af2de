/** Capture, void and refunds of a transaction, every illegal move with its 422 code, and refund reads. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError, expectWrapped } from '../helpers/envelope';
import { CARDS } from '../helpers/vault';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { stack } from '../helpers/stack';
import { rows } from '../helpers/db';
import { SEARCH_ATTRIBUTE_KEYS } from '../../workflows/definitions';

describe('POST /api/v1/transactions/:id/capture and /void', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
  });
  const preAuth = async () => (await charge(tenant, cardCharge(await cardToken(tenant), { capture: false }))).body.data;
  const capture = (id: string, body: Record<string, unknown> = {}) =>
    api.post(`/transactions/${id}/capture`, { key: tenant.merchant_secret_key, body });
  const voidTx = (id: string) => api.post(`/transactions/${id}/void`, { key: tenant.merchant_secret_key, body: {} });

  it('captures a pre_authorized transaction in full: authorized, amount_captured = amount_authorized, order authorized', async () => {
    const tx = await preAuth();
    const captured = expectWrapped(await capture(tx.id), 200);
    expect(captured).to.include({ status: 'authorized', amount_authorized: 1500, amount_captured: 1500 });
    const order = (await api.get(`/orders/${tx.order_id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(order.status_history.map((h: any) => h.to_status)).to.deep.equal([
      'pending',
      'pre_authorized',
      'authorized',
    ]);
    expectError(await capture(tx.id), 422, 'business_rule_error', 'TRANSACTION_ALREADY_CAPTURED');
    expectError(await voidTx(tx.id), 422, 'business_rule_error', 'TRANSACTION_ALREADY_CAPTURED');
  });

  it('the capture workflow carries MerchantId and the resulting TransactionStatus, so operators find it', async () => {
    const tx = await preAuth();
    expectWrapped(await capture(tx.id), 200);
    const client = stack().api.deps.temporal.client;
    const query = `WorkflowType = 'transactionOperationWorkflow' AND MerchantId = '${tenant.merchant_id}'`;
    let found: string[] = [];
    // Visibility is eventually consistent: poll briefly for the closed workflow.
    for (let i = 0; i < 50 && found.length === 0; i += 1) {
      found = [];
      for await (const wf of client.workflow.list({ query })) found.push(wf.workflowId);
      if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(found).to.have.length.greaterThan(0);
    const description = await client.workflow.getHandle(found[0]).describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.MerchantId)).to.equal(tenant.merchant_id);
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.TransactionStatus)).to.equal('authorized');
    expect(await description.staticSummary()).to.equal(`Capture of ${tx.id}`);
  });

  it('captures partially; more than authorized is 422', async () => {
    const tx = await preAuth();
    expectError(await capture(tx.id, { amount: 1501 }), 422, 'business_rule_error', 'CAPTURE_EXCEEDS_AUTHORIZED');
    expect(expectWrapped(await capture(tx.id, { amount: 500 }), 200)).to.include({
      status: 'authorized',
      amount_captured: 500,
    });
  });

  it('voids a pre_authorized transaction (order canceled); a second void or a capture is TRANSACTION_ALREADY_VOIDED', async () => {
    const tx = await preAuth();
    expect(expectWrapped(await voidTx(tx.id), 200).status).to.equal('voided');
    expect((await api.get(`/orders/${tx.order_id}`, { key: tenant.merchant_secret_key })).body.data.status).to.equal(
      'canceled',
    );
    expectError(await voidTx(tx.id), 422, 'business_rule_error', 'TRANSACTION_ALREADY_VOIDED');
    expectError(await capture(tx.id), 422, 'business_rule_error', 'TRANSACTION_ALREADY_VOIDED');
  });

  it('a failed transaction cannot be captured, voided or refunded: INVALID_STATE_TRANSITION', async () => {
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant, CARDS.stolen)))).body.data;
    expectError(await capture(tx.id), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
    expectError(await voidTx(tx.id), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
    const refund = await api.post(`/transactions/${tx.id}/refunds`, { key: tenant.merchant_secret_key, body: {} });
    expectError(refund, 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
  });

  it("another merchant's transaction is 404; bad bodies are 400", async () => {
    const tx = await preAuth();
    const stranger = await createTenant();
    expectError(
      await api.post(`/transactions/${tx.id}/capture`, { key: stranger.merchant_secret_key, body: {} }),
      404,
      'not_found_error',
    );
    expectError(await capture(tx.id, { amount: -5 }), 400, 'validation_error');
    expectError(await capture(tx.id, { amount: 5, extra: true }), 400, 'validation_error');
  });
});

describe('POST /api/v1/transactions/:id/refunds and refund reads', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
  });
  const paid = async (amount = 1500) =>
    (await charge(tenant, cardCharge(await cardToken(tenant), { amount }))).body.data;
  const refund = (id: string, body: Record<string, unknown> = {}) =>
    api.post(`/transactions/${id}/refunds`, { key: tenant.merchant_secret_key, body });

  it('refunds partially then fully: partially_refunded, then refunded; a third refund is TRANSACTION_ALREADY_REFUNDED', async () => {
    const tx = await paid();
    const first = expectWrapped(await refund(tx.id, { amount: 500, reason: 'requested_by_customer' }), 201);
    expect(first).to.include({
      amount: 500,
      currency: 'USD',
      status: 'succeeded',
      transaction_id: tx.id,
      reason: 'requested_by_customer',
    });
    expect(first.id).to.match(/^ref_/);
    let now = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(now).to.include({ status: 'partially_refunded', amount_refunded: 500 });
    expectError(await refund(tx.id, { amount: 1001 }), 422, 'business_rule_error', 'REFUND_EXCEEDS_BALANCE');
    const second = expectWrapped(await refund(tx.id), 201);
    expect(second.amount).to.equal(1000);
    now = (await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data;
    expect(now).to.include({ status: 'refunded', amount_refunded: 1500 });
    expectError(await refund(tx.id), 422, 'business_rule_error', 'TRANSACTION_ALREADY_REFUNDED');
    const list = await api.get(`/transactions/${tx.id}/refunds`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(list, 200, { list: true }).map((r: any) => r.id)).to.deep.equal([second.id, first.id]);
    const one = await api.get(`/transactions/${tx.id}/refunds/${first.id}`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(one, 200)).to.deep.equal(first);
    const stranger = await createTenant();
    expectError(
      await api.get(`/transactions/${tx.id}/refunds/${first.id}`, { key: stranger.merchant_secret_key }),
      404,
      'not_found_error',
    );
  });

  /** The transaction events (data.object the transaction) and refund events (the refund) of one transaction. */
  const eventsOf = async (txId: string): Promise<string[]> =>
    (
      await rows(`select type from events where data->>'id' = ? or data->>'transaction_id' = ? order by seq`, [
        txId,
        txId,
      ])
    ).map((e) => e.type);

  it('a refund the provider refuses returns the transaction to authorized and records transaction.refund_failed only', async () => {
    const tx = await paid();
    const before = await eventsOf(tx.id);
    const failed = expectWrapped(await refund(tx.id, { amount: 161 }), 201);
    expect(failed.status).to.equal('failed');
    expect((await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data).to.include({
      status: 'authorized',
      amount_refunded: 0,
    });
    expect((await eventsOf(tx.id)).slice(before.length)).to.deep.equal([
      'transaction.refund_created',
      'transaction.refund_pending',
      'transaction.refund_failed',
    ]);
  });

  it('a refused refund after a partial refund returns to partially_refunded without a second partially_refunded event', async () => {
    const tx = await paid();
    expectWrapped(await refund(tx.id, { amount: 500 }), 201);
    const before = await eventsOf(tx.id);
    expect(before.filter((t) => t === 'transaction.partially_refunded')).to.have.length(1);
    expect(expectWrapped(await refund(tx.id, { amount: 161 }), 201).status).to.equal('failed');
    expect((await api.get(`/transactions/${tx.id}`, { key: tenant.merchant_secret_key })).body.data).to.include({
      status: 'partially_refunded',
      amount_refunded: 500,
    });
    expect((await eventsOf(tx.id)).slice(before.length)).to.deep.equal([
      'transaction.refund_created',
      'transaction.refund_pending',
      'transaction.refund_failed',
    ]);
  });

  it('a refund awaiting the provider stays pending, the transaction refund_pending, and counts against the balance', async () => {
    const brl = await createTenant();
    // No webhook endpoint registered: the provider's refund result never arrives, so the refund stays pending.
    await cascade(brl, ['provider_b'], { webhooks: false });
    const tx = (await charge(brl, cardCharge(await cardToken(brl), { currency: 'BRL', country: 'BR' }))).body.data;
    expect(tx.status, JSON.stringify(tx.timeline)).to.equal('authorized');
    const pending = expectWrapped(
      await api.post(`/transactions/${tx.id}/refunds`, { key: brl.merchant_secret_key, body: { amount: 1000 } }),
      201,
    );
    expect(pending.status).to.equal('pending');
    expect((await api.get(`/transactions/${tx.id}`, { key: brl.merchant_secret_key })).body.data.status).to.equal(
      'refund_pending',
    );
    const over = await api.post(`/transactions/${tx.id}/refunds`, {
      key: brl.merchant_secret_key,
      body: { amount: 600 },
    });
    expectError(over, 422, 'business_rule_error', 'REFUND_EXCEEDS_BALANCE');
  });
});
