/**
 * Capture intent survives settlement when no webhook comes: a `capture: false` card charge held for review, approved
 * later at the provider, is found by the settlement workflow's own provider read and recorded pre_authorized with
 * nothing captured — then captured through the API like any authorization. Time-skipping test server running the
 * real charge workflow (which starts the settlement child) and activities; the connector has no webhook endpoint.
 */
import { expect } from 'chai';
import { buildTransactionInput } from '../../api/modules/transactions/transaction-request.service';
import { transactionWorkflow } from '../../workflows/transaction';
import { transactionWorkflowId, settlementWorkflowId } from '../../workflows/transaction.shared';
import { useTimeSkipping, stackWorker } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { expectWrapped } from '../helpers/envelope';
import { rows } from '../helpers/db';
import { control } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade, override, providerReferenceOf } from '../helpers/transactions';

describe('asyncSettlementWorkflow — a capture:false charge approved after review, found by asking the provider', () => {
  const taskQueue = 'test-settlement-capture-intent';
  const server = useTimeSkipping();

  it('capture intent survives settlement: the provider read settles it pre_authorized with amount_captured 0, and POST /capture then takes the money', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a'], { webhooks: false });
    await override(connector, 'review', 1);
    const body = cardCharge(await cardToken(tenant), { capture: false });
    const input = await buildTransactionInput(
      stack().orm.em.fork(),
      tenant.organization_id,
      tenant.merchant_id,
      body as never,
    );
    const worker = await stackWorker(server.env, taskQueue);
    const charged = await server.env.client.workflow.start(transactionWorkflow, {
      workflowId: transactionWorkflowId(input.transactionId),
      taskQueue,
      args: [input],
    });
    const txId = input.transactionId;
    const reference = await worker.runUntil(async () => {
      expect(await charged.result()).to.deep.equal({ transactionId: txId, status: 'pending' });
      // The provider approves the authorization; its webhook reaches nobody.
      const held = await providerReferenceOf(tenant, txId);
      const settled = await control('POST', `/payments/${held}/settle`, {});
      expect(settled.status, JSON.stringify(settled.body)).to.be.lessThan(300);
      const settlement = server.env.client.workflow.getHandle(settlementWorkflowId(txId));
      expect(await settlement.result()).to.deep.equal({ transactionId: txId, status: 'pre_authorized' });
      return held;
    });

    const key = tenant.merchant_secret_key;
    const tx = (await api.get(`/transactions/${txId}`, { key })).body.data;
    expect(tx).to.include({ status: 'pre_authorized', amount_authorized: 1500, amount_captured: 0 });
    const events = await rows(`select type from events where merchant_id = ? and data->>'id' = ? order by seq`, [
      tenant.merchant_id,
      txId,
    ]);
    expect(events.map((e) => e.type)).to.deep.equal([
      'transaction.created',
      'transaction.pending',
      'transaction.pre_authorized',
    ]);

    const captured = expectWrapped(await api.post(`/transactions/${txId}/capture`, { key, body: {} }), 200);
    expect(captured).to.include({ status: 'authorized', amount_captured: 1500 });
    expect((await control('GET', `/payments/${reference}`)).body).to.include({
      state: 'captured',
      capturedAmount: 1500,
    });
  });
});
