/**
 * An Adyen (provider_b) capture whose answer was lost, with no CAPTURE notification, cannot be read: the operation
 * keeps looking and the transaction stays capture_pending with its owner. Seven days (PROVIDER_OUTCOME_IN_DOUBT_DAYS)
 * after the request, the merchant is told once (transaction.in_doubt) and the transaction says so (failure_code
 * operation_in_doubt); nothing moves and the owner is kept, so a notification that comes later (Adyen retries it, or
 * the merchant resends it from the provider's dashboard) still finishes the capture, which clears the mark.
 * Time-skipping test server; the transaction is a real charge at the sandbox, the notification reaches the stack's
 * real inbound-webhook endpoint.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SEARCH_ATTRIBUTE_KEYS } from '../../workflows/definitions';
import type { OperationInput } from '../../workflows/lib/transaction-types';
import { transactionOperationWorkflow } from '../../workflows/transaction-operation';
import { operationWorkflowId } from '../../workflows/transaction-operation.shared';
import { useTimeSkipping, stackWorker } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { control } from '../helpers/sandbox';
import { cardCharge, cardToken, cascade, charge, providerReferenceOf } from '../helpers/transactions';

const DAY_MS = 86_400_000;

describe('An Adyen capture in doubt past its deadline (time-skipping test server)', () => {
  const taskQueue = 'test-operation-in-doubt';
  const server = useTimeSkipping();

  it('a capture with a lost answer and no notification is escalated once after seven days (transaction.in_doubt, failure_code operation_in_doubt, still capture_pending); a later CAPTURE notification finishes it and clears the mark', async function () {
    this.timeout(240_000);
    const tenant = await createTenant();
    const key = tenant.merchant_secret_key;
    const [connector] = await cascade(tenant, ['provider_b'], { webhooks: false });
    const res = await charge(
      tenant,
      cardCharge(await cardToken(tenant), { capture: false, currency: 'BRL', country: 'BR' }),
    );
    expect(res.body.data.status, res.text).to.equal('pre_authorized');
    const txId = res.body.data.id;
    const forced = await control('POST', '/overrides', {
      provider: 'provider_b',
      credentials: connector.credentials,
      operation: 'capture',
      scenario: 'approved_server_error',
      times: 1,
    });
    expect(forced.status, JSON.stringify(forced.body)).to.equal(201);

    const operation: OperationInput = { kind: 'capture', operationId: randomUUID(), transactionId: txId };
    const worker = await stackWorker(server.env, taskQueue);
    const read = async () => (await api.get(`/transactions/${txId}`, { key })).body.data;
    const inDoubtEvents = async () =>
      (await rows(`select data from events where type = 'transaction.in_doubt' and data->>'id' = ?`, [txId])).map(
        (row) => row.data,
      );
    await worker.runUntil(async () => {
      const handle = await server.env.client.workflow.start(transactionOperationWorkflow, {
        workflowId: operationWorkflowId(operation),
        taskQueue,
        args: [operation],
        typedSearchAttributes: [{ key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: tenant.merchant_id }],
      });
      await server.env.sleep(6 * DAY_MS);
      // Within the deadline: unknown, owned, nothing told.
      expect(await read()).to.include({ status: 'capture_pending', failure_code: null });
      expect(await inDoubtEvents()).to.deep.equal([]);

      await server.env.sleep(2 * DAY_MS);
      const escalated = await read();
      expect(escalated).to.include({ status: 'capture_pending', failure_code: 'operation_in_doubt' });
      expect(escalated.failure_message).to.match(/provider/i);
      const told = await inDoubtEvents();
      expect(told.map((object) => [object.status, object.failure_code])).to.deep.equal([
        ['capture_pending', 'operation_in_doubt'],
      ]);
      // Still owned: no second capture or void reaches the provider under another key.
      const again = await api.post(`/transactions/${txId}/void`, { key, headers: { 'idempotency-key': randomUUID() } });
      expect(again.status, again.text).to.equal(409);

      // The notification comes at last: the next lookup takes it.
      await notifyCapture(connector, txId, await providerReferenceOf(tenant, txId));
      await server.env.sleep(2 * 3_600_000);
      expect(await handle.result()).to.deep.equal({ ok: true, outcome: 'approved' });
    });
    expect(await read()).to.include({
      status: 'authorized',
      amount_captured: 1500,
      failure_code: null,
      failure_message: null,
    });
    expect(await inDoubtEvents()).to.have.length(1);
  });
});

/** Adyen's CAPTURE notification (success) of the payment `psp`, authenticated as Adyen sends it (HTTP Basic). */
async function notifyCapture(
  connector: { webhookUrl: string; webhookSecret: string; credentials: any },
  txId: string,
  psp: string,
) {
  const secret = JSON.parse(connector.webhookSecret) as { username: string; password: string };
  const item = {
    amount: { value: 1500, currency: 'BRL' },
    eventCode: 'CAPTURE',
    eventDate: new Date().toISOString(),
    merchantAccountCode: connector.credentials.merchant_account,
    merchantReference: txId,
    originalReference: psp,
    pspReference: `MOD${randomUUID().replace(/-/g, '').slice(0, 13).toUpperCase()}`,
    reason: '',
    success: 'true',
  };
  const response = await fetch(connector.webhookUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${secret.username}:${secret.password}`).toString('base64')}`,
    },
    body: JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] }),
  });
  expect(response.status).to.be.lessThan(300);
}
