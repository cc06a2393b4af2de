import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { housekeepingWorkflow } from '../../workflows/housekeeping';
import { useTimeSkipping } from '../helpers/time-skipping';
import { stack } from '../helpers/stack';
import { createTenant } from '../helpers/factories';
import { cardConnector, mintToken, openSession } from '../helpers/vault';
import { createMerchantUser, signIn } from '../helpers/dashboard';
import { api } from '../helpers/http';
import { newId } from '../../domain/platform/ids';
import { hashSecret } from '../../domain/platform/crypto';

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

  it('purges dead refresh-token families, spent reset tokens and old sent mail, keeping live ones', async () => {
    const { orm, workflowBundle } = stack();
    const tenant = await createTenant();
    const em = orm.em.fork();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const familyOf = async (refreshToken: string) => {
      const [row] = await em.execute<{ family_id: string }[]>(
        'select family_id from refresh_tokens where token_hash = ?',
        [hashSecret(refreshToken)],
      );
      return row?.family_id;
    };
    // Live: logged in and refreshed once, so the family holds a rotated token (kept for reuse detection) and a live one.
    const live = await signIn('merchant', user);
    const refreshed = await api.post('/auth/refresh', { body: { refresh_token: live.refresh_token } });
    expect(refreshed.status, refreshed.text).to.equal(200);
    // Dead: logged out (revoked), a session whose latest token expired, one past its family lifetime.
    const loggedOut = await signIn('merchant', user);
    const logout = await api.post('/auth/logout', { headers: { authorization: `Bearer ${loggedOut.access_token}` } });
    expect(logout.status, logout.text).to.equal(200);
    const expired = await signIn('merchant', user);
    const overAge = await signIn('merchant', user);
    const families = {
      live: await familyOf(live.refresh_token),
      loggedOut: await familyOf(loggedOut.refresh_token),
      expired: await familyOf(expired.refresh_token),
      overAge: await familyOf(overAge.refresh_token),
    };
    expect(Object.values(families).every(Boolean), JSON.stringify(families)).to.equal(true);
    await em.execute(`update refresh_tokens set expires_at = now() - interval '1 minute' where family_id = ?`, [
      families.expired,
    ]);
    await em.execute(`update refresh_tokens set family_expires_at = now() - interval '1 minute' where family_id = ?`, [
      families.overAge,
    ]);

    const reset = { used: newId('prt'), expired: newId('prt'), live: newId('prt') };
    await em.execute(
      `insert into password_reset_tokens (id, identity, user_id, token_hash, expires_at, used_at) values
         (?, 'merchant', ?, ?, now() + interval '10 minutes', now()),
         (?, 'merchant', ?, ?, now() - interval '1 minute', null),
         (?, 'merchant', ?, ?, now() + interval '10 minutes', null)`,
      [reset.used, user.id, reset.used, reset.expired, user.id, reset.expired, reset.live, user.id, reset.live],
    );
    const mail = { oldSent: newId('mail'), recentSent: newId('mail'), unsent: newId('mail') };
    await em.execute(
      `insert into mail_outbox (id, kind, recipient, content_encrypted, sent_at, created_at) values
         (?, 'test', 'a@example.com', 'sealed', now() - interval '2 days', now() - interval '2 days'),
         (?, 'test', 'a@example.com', 'sealed', now() - interval '1 hour', now() - interval '1 hour'),
         (?, 'test', 'a@example.com', 'sealed', null, now() - interval '3 days')`,
      [mail.oldSent, mail.recentSent, mail.unsent],
    );

    const taskQueue = 'test-housekeeping-dashboard';
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue,
      workflowBundle,
      activities: createActivities({ orm, rateLimitWindowSeconds: 60 }),
    });
    const result = await worker.runUntil(
      server.env.client.workflow.execute(housekeepingWorkflow, {
        taskQueue,
        workflowId: `housekeeping-dashboard-${tenant.merchant_id}`,
      }),
    );

    expect(result.dashboardTokensPurged).to.be.at.least(5); // 3 dead families' rows + 2 reset tokens
    expect(result.sentMailPurged).to.be.at.least(1);
    const tokenRows = await em.execute<{ family_id: string; rotated: boolean }[]>(
      `select family_id, rotated_at is not null as rotated from refresh_tokens where user_id = ? order by created_at`,
      [user.id],
    );
    expect(tokenRows).to.deep.equal([
      { family_id: families.live, rotated: true },
      { family_id: families.live, rotated: false },
    ]);
    const resets = await em.execute<{ id: string }[]>(`select id from password_reset_tokens where user_id = ?`, [
      user.id,
    ]);
    expect(resets.map((row) => row.id)).to.deep.equal([reset.live]);
    const mails = await em.execute<{ id: string }[]>(`select id from mail_outbox where id in (?, ?, ?) order by id`, [
      mail.oldSent,
      mail.recentSent,
      mail.unsent,
    ]);
    expect(mails.map((row) => row.id).sort()).to.deep.equal([mail.recentSent, mail.unsent].sort());

    // The kept rotated token still trips reuse detection: presenting it revokes the live family.
    const reuse = await api.post('/auth/refresh', { body: { refresh_token: live.refresh_token } });
    expect(reuse.status).to.equal(401);
    const again = await api.post('/auth/refresh', { body: { refresh_token: refreshed.body.refresh_token } });
    expect(again.status).to.equal(401);
  });
});
