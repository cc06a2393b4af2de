import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { housekeepingWorkflow } from '../../workflows/housekeeping';
import { useTimeSkipping } from '../helpers/time-skipping';
import { stack } from '../helpers/stack';
import { createTenant } from '../helpers/factories';

describe('housekeepingWorkflow (time-skipping test server)', () => {
  const server = useTimeSkipping();

  it('purges expired idempotency keys and finished rate-limit windows, keeping live ones', async () => {
    const { orm, workflowBundle } = stack();
    const tenant = await createTenant();
    const em = orm.em.fork();
    await em.execute(
      `insert into idempotency_keys (scope_id, key, fingerprint, expires_at) values
         (?, 'expired', 'f', now() - interval '1 minute'), (?, 'live', 'f', now() + interval '1 hour')`,
      [tenant.merchant_id, tenant.merchant_id],
    );
    await em.execute(
      `insert into rate_limit_counters (bucket, window_start, count) values
         (?, now() - interval '10 minutes', 5), (?, now(), 1)`,
      [`${tenant.merchant_id}-old`, `${tenant.merchant_id}-current`],
    );

    const taskQueue = 'test-housekeeping';
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle,
      activities: createActivities({ orm, rateLimitWindowSeconds: 60 }),
    });
    const result = await worker.runUntil(
      server.env.client.workflow.execute(housekeepingWorkflow, {
        taskQueue,
        workflowId: `housekeeping-${tenant.merchant_id}`,
      }),
    );

    expect(result.idempotencyKeysPurged).to.be.at.least(1);
    expect(result.rateLimitWindowsPurged).to.be.at.least(1);
    const keys = await em.execute<{ key: string }[]>(`select key from idempotency_keys where scope_id = ?`, [
      tenant.merchant_id,
    ]);
    expect(keys.map((row: { key: string }) => row.key)).to.deep.equal(['live']);
    const windows = await em.execute<{ bucket: string }[]>(
      `select bucket from rate_limit_counters where bucket like ?`,
      [`${tenant.merchant_id}-%`],
    );
    expect(windows.map((row: { bucket: string }) => row.bucket)).to.deep.equal([`${tenant.merchant_id}-current`]);
  });
});
