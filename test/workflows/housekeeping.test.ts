import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { housekeepingWorkflow } from '../../workflows/housekeeping';
import { useTimeSkipping } from '../helpers/time-skipping';
import { stack } from '../helpers/stack';
import { createTenant } from '../helpers/factories';
import { cardConnector, mintToken, openSession } from '../helpers/vault';

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
         (?, now() - interval '30 minutes', 5), (?, now(), 1)`,
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

  it("wipes expired card tokens' sealed PAN, name and CVC on the schedule, without waiting for a mint", async () => {
    const { orm, workflowBundle } = stack();
    const tenant = await createTenant();
    await cardConnector(tenant, 'provider_a');
    const session = await openSession(tenant);
    const expired = await mintToken(tenant, session, { number: '4242424242424242', cvc: '123', name: 'Ana Souza' });
    const live = await mintToken(tenant, session);
    const em = orm.em.fork();
    const past = new Date(Date.now() - 60_000);
    await em.execute('update card_tokens set expires_at = ? where id = ?', [past, expired.tokenId]);
    await em.execute('update card_token_cvcs set expires_at = ? where card_token_id = ?', [past, expired.tokenId]);

    const taskQueue = 'test-housekeeping-tokens';
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle,
      activities: createActivities({ orm, rateLimitWindowSeconds: 60 }),
    });
    const result = await worker.runUntil(
      server.env.client.workflow.execute(housekeepingWorkflow, {
        taskQueue,
        workflowId: `housekeeping-tokens-${tenant.merchant_id}`,
      }),
    );

    expect(result.cardTokensWiped).to.be.at.least(2); // the token and its CVC
    const tokens = await em.execute<{ id: string; status: string; pan: boolean; name: boolean; cvc: boolean }[]>(
      `select t.id, t.status, t.pan_encrypted is not null as pan, t.holder_name_encrypted is not null as name,
              exists (select 1 from card_token_cvcs c where c.card_token_id = t.id) as cvc
         from card_tokens t where t.id in (?, ?)`,
      [expired.tokenId, live.tokenId],
    );
    const byId = Object.fromEntries(tokens.map((row) => [row.id, row]));
    expect(byId[expired.tokenId]).to.include({ status: 'expired', pan: false, name: false, cvc: false });
    expect(byId[live.tokenId]).to.include({ status: 'active', pan: true, cvc: true });
  });
});
