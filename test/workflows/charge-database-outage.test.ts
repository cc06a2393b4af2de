/**
 * A charge's database steps never give up: a database outage of any length delays the charge but never orphans it
 * (left pending forever, the money possibly taken). Here the final write of an approved charge fails many more times
 * than any fixed retry budget would allow — as it would while PostgreSQL is down — and the transaction still ends
 * authorized. Time-skipping test server (it skips the retry backoff); the real charge workflow, the real activities
 * against the stack's database, the sandbox provider.
 */
import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { vaultSettingsOf } from '../../activities/vault';
import { buildTransactionInput } from '../../api/modules/transactions/transaction-request.service';
import { transactionWorkflow } from '../../workflows/transaction';
import { transactionWorkflowId } from '../../workflows/transaction.shared';
import { useTimeSkipping } from '../helpers/time-skipping';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { cardCharge, cardToken, cascade } from '../helpers/transactions';

/** Tries of the final write that fail before the database answers again. */
const FAILED_WRITES = 40;

describe('transactionWorkflow — the database is unavailable when an approved charge is written', () => {
  const taskQueue = 'test-charge-database-outage';
  const server = useTimeSkipping();

  it('a charge’s database steps retry without limit: the final write failing 40 times in a row still ends authorized', async function () {
    // The first tries back off in the worker in real time (under a minute), the later ones on skipped timers.
    this.timeout(5 * 60 * 1000);
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const input = await buildTransactionInput(
      stack().orm.em.fork(),
      tenant.organization_id,
      tenant.merchant_id,
      cardCharge(await cardToken(tenant)) as never,
    );
    const activities = createActivities({
      orm: stack().orm,
      rateLimitWindowSeconds: 60,
      vault: vaultSettingsOf(stack().config),
    });
    let tries = 0;
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle: stack().workflowBundle,
      activities: {
        ...activities,
        finalizeTransaction: async (...args: Parameters<typeof activities.finalizeTransaction>) => {
          tries += 1;
          if (tries <= FAILED_WRITES) throw new Error('connect ECONNREFUSED (database unavailable)');
          return activities.finalizeTransaction(...args);
        },
      },
    });
    const handle = await server.env.client.workflow.start(transactionWorkflow, {
      workflowId: transactionWorkflowId(input.transactionId),
      taskQueue,
      args: [input],
    });

    expect(await worker.runUntil(handle.result())).to.deep.equal({
      transactionId: input.transactionId,
      status: 'authorized',
    });
    expect(tries).to.equal(FAILED_WRITES + 1);
    const tx = (await api.get(`/transactions/${input.transactionId}`, { key: tenant.merchant_secret_key })).body.data;
    expect(tx).to.include({ status: 'authorized', amount_captured: 1500 });
  });
});
