/**
 * A card charge waiting for its buyer's 3-D Secure challenge whose wait died (terminated, not restarted) is found by
 * the pending-charge sweep and resolved as a card, on the time-skipping test server with the real activities against
 * the stack's database and sandbox: the sweep hands it to a new wait on the attempt's stored challenge, which asks
 * the provider, and past expires_at gives up at once (canceled at the provider, authentication_abandoned).
 */
import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import { api } from '../helpers/http';
import { createTenant, giveWebsite } from '../helpers/factories';
import { rows } from '../helpers/connectors';
import { control } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { useTimeSkipping } from '../helpers/time-skipping';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { createActivities } from '../../activities';
import { vaultSettingsOf } from '../../activities/vault';
import { workflowSpanSinks } from '../../worker/telemetry';
import { authenticationWorkflowId } from '../../workflows/transaction.shared';

const CHALLENGE = { number: '4000000000003220', cvc: '123', brand: 'visa' };

describe('The pending sweep and a challenged charge whose wait died (time-skipping test server)', () => {
  const taskQueue = 'test-three-ds-pending-sweep';
  const server = useTimeSkipping();

  /** A real challenged charge, its wait terminated, pending for an hour: nothing is left to finish it. */
  async function orphaned() {
    const tenant = await createTenant();
    await giveWebsite(tenant);
    await cascade(tenant, ['provider_a'], { webhooks: false });
    const res = await charge(tenant, cardCharge(await cardToken(tenant, CHALLENGE)));
    expect(res.status, res.text).to.equal(201);
    const tx = res.body.data;
    expect(tx.status).to.equal('pending');
    await stack().api.deps.temporal.client.workflow.getHandle(authenticationWorkflowId(tx.id)).terminate('test');
    await rows(`update transactions set created_at = now() - interval '1 hour' where id = ?`, [tx.id]);
    const paymentId = new URL(tx.next_action.url).pathname.split('/').pop()!;
    return { tenant, tx, paymentId };
  }

  /** The sweep for the merchant on the test server (its activity starts workflows there), then the wait it started. */
  async function swept(merchantId: string, transactionId: string) {
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle: stack().workflowBundle,
      sinks: workflowSpanSinks(),
      activities: createActivities({
        orm: stack().orm,
        rateLimitWindowSeconds: 60,
        vault: vaultSettingsOf(stack().config),
        temporalClient: server.env.client,
      }),
    });
    return worker.runUntil(async () => {
      const resumed = await server.env.client.workflow.execute('pendingTransactionSweepWorkflow', {
        workflowId: `test-pending-sweep-${transactionId}`,
        taskQueue,
        args: [{ merchantId }],
      });
      expect(resumed).to.deep.equal({ resumed: 1 });
      return server.env.client.workflow.getHandle(authenticationWorkflowId(transactionId)).result();
    });
  }

  const read = async (tenant: { merchant_secret_key: string }, id: string) =>
    (await api.get(`/transactions/${id}`, { key: tenant.merchant_secret_key })).body.data;

  it('past expires_at: a new wait gives up at once, the payment canceled at the provider, the charge failed authentication_abandoned', async () => {
    const { tenant, tx, paymentId } = await orphaned();
    await rows(
      `update transaction_attempts set three_ds = jsonb_set(three_ds, '{expires_at}', to_jsonb(?::text))
        where transaction_id = ?`,
      [new Date(Number(await server.env.currentTimeMs()) - 60_000).toISOString(), tx.id],
    );
    expect(await swept(tenant.merchant_id, tx.id)).to.deep.equal({ transactionId: tx.id, status: 'failed' });
    expect(await read(tenant, tx.id)).to.include({ status: 'failed', failure_code: 'authentication_abandoned' });
    expect((await control('GET', `/payments/${paymentId}`)).body.state).to.equal('voided');
    const failed = await rows(
      `select id from events where merchant_id = ? and type = 'transaction.failed' and data->>'id' = ?`,
      [tenant.merchant_id, tx.id],
    );
    expect(failed).to.have.length(1);
  });

  it('the buyer passed meanwhile: a new wait asks the provider, the charge authorized', async () => {
    const { tenant, tx } = await orphaned();
    const completed = await fetch(tx.next_action.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=authenticated',
      redirect: 'manual',
    });
    expect(completed.status).to.equal(303);
    expect(await swept(tenant.merchant_id, tx.id)).to.deep.equal({ transactionId: tx.id, status: 'authorized' });
    expect(await read(tenant, tx.id)).to.include({ status: 'authorized', amount_authorized: 1500 });
  });
});
