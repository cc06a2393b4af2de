/**
 * Forgot-password (always the same 202), the reset link e-mailed for real (read back from the mail catcher), the
 * reset completion (POST /auth/reset-password: single use, short-lived, ends every session), and the mail outbox's
 * delivery (sealed content, retried until accepted, never handed over twice).
 */
import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { MAIL_SWEEP_SCHEDULE_ID } from '../../worker/schedules';
import { TASK_QUEUES } from '../../workflows/definitions';
import { mailOutboxSweepWorkflow } from '../../workflows/mail-delivery';
import { loadConfig } from '../../domain/platform/config';
import { startApi, type RunningApi } from '../../api/server';
import { createMailActivities } from '../../activities/mail';
import { enqueueMail } from '../../domain/mail/mail.outbox';
import { encryptSecret } from '../../domain/platform/crypto';
import { newId } from '../../domain/platform/ids';
import { MailMessageSchema } from '../../db/entities';
import { api } from '../helpers/http';
import { createTenant, uniqueEmail } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { rows } from '../helpers/db';
import { stack } from '../helpers/stack';
import { freePort } from '../helpers/ports';
import { mailTo, tokenIn, waitForMail } from '../helpers/mail';
import {
  NEW_PASSWORD,
  PASSWORD,
  createAdminUser,
  createMerchantUser,
  createOrganizationUser,
  signIn,
} from '../helpers/dashboard';

const forgot = (path: string, email: string) => api.post(path, { body: { email } });

describe('Dashboard passwords: forgot-password and reset', () => {
  it('e-mails a reset link; the token sets a new password once and ends every session', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const session = await signIn('merchant', user);
    const res = await forgot('/auth/merchant/forgot-password', user.email);
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.have.all.keys(['message']);

    const [mail] = await waitForMail(user.email);
    expect(mail.subject).to.match(/Reset your Switchyard password/);
    expect(mail.messageId).to.match(/^mail_[0-9A-Za-z]+@switchyard$/);
    const token = tokenIn(mail);
    const [stored] = await rows(
      "select content_encrypted from mail_outbox where recipient = ? and kind = 'password_reset'",
      [user.email],
    );
    expect(stored.content_encrypted).to.not.include(token);

    const weak = await api.post('/auth/reset-password', { body: { token, new_password: 'weak' } });
    expectError(weak, 400, 'validation_error');
    const done = await api.post('/auth/reset-password', { body: { token, new_password: NEW_PASSWORD } });
    expect(done.status, done.text).to.equal(200);
    expect(done.body).to.have.all.keys(['message']);
    expectError(await api.post('/auth/refresh', { body: { refresh_token: session.refresh_token } }), 401);
    await signIn('merchant', { email: user.email, password: NEW_PASSWORD });
    const again = await api.post('/auth/reset-password', { body: { token, new_password: 'Another-Pass-99' } });
    expectError(again, 401, 'authentication_error', 'INVALID_CREDENTIALS');
  });

  it('answers the same 202 for an unknown address, and sends nothing', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const known = await forgot('/auth/merchant/forgot-password', user.email);
    const nobody = uniqueEmail('nobody');
    const unknown = await forgot('/auth/merchant/forgot-password', nobody);
    expect(unknown.status).to.equal(202);
    expect(unknown.body).to.deep.equal(known.body);
    // The outbox row is written in the request's transaction: none exists for the unknown address.
    expect(await rows('select id from mail_outbox where recipient = ?', [nobody])).to.have.length(0);
  });

  it('resets only the identity of the endpoint (organization, admin)', async () => {
    const tenant = await createTenant();
    const email = uniqueEmail('both');
    await createOrganizationUser([tenant.organization_id], { email });
    await createAdminUser({ email });
    expect((await forgot('/auth/organization/forgot-password', email)).status).to.equal(202);
    const [mail] = await waitForMail(email);
    expect(mail.text).to.include('organization Dashboard');
    const done = await api.post('/auth/reset-password', { body: { token: tokenIn(mail), new_password: NEW_PASSWORD } });
    expect(done.status, done.text).to.equal(200);
    await signIn('organization', { email, password: NEW_PASSWORD });
    await signIn('admin', { email, password: PASSWORD });
  });

  it('refuses an expired reset token with 401', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    await forgot('/auth/merchant/forgot-password', user.email);
    const [mail] = await waitForMail(user.email);
    await rows("update password_reset_tokens set expires_at = now() - interval '1 second' where user_id = ?", [
      user.id,
    ]);
    expectError(
      await api.post('/auth/reset-password', { body: { token: tokenIn(mail), new_password: NEW_PASSWORD } }),
      401,
    );
  });

  it('sends at most FORGOT_PASSWORD_PER_EMAIL messages per address and window (the answer stays 202)', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const limit = stack().config.dashboard.forgotPerEmail;
    for (let i = 0; i <= limit; i += 1) {
      expect((await forgot('/auth/merchant/forgot-password', user.email)).status).to.equal(202);
    }
    expect(await rows('select id from mail_outbox where recipient = ?', [user.email])).to.have.length(limit);
  });

  describe('per client IP', () => {
    let limited: RunningApi;
    before(async () => {
      const config = loadConfig({ ...stack().env, FORGOT_PASSWORD_PER_IP: '2', TRUSTED_PROXIES: '127.0.0.0/8,::1' });
      limited = await startApi({ ...config, env: 'production' }, 0);
    });
    after(() => limited.stop());

    it('answers 429 past the IP budget', async () => {
      const ip = `192.0.2.${Math.floor(Math.random() * 200) + 1}`;
      const send = () =>
        api.post('/auth/merchant/forgot-password', {
          baseUrl: limited.url,
          headers: { 'x-forwarded-for': ip },
          body: { email: uniqueEmail('x') },
        });
      expect((await send()).status).to.equal(202);
      expect((await send()).status).to.equal(202);
      expectError(await send(), 429, 'rate_limit_error', 'RATE_LIMIT_EXCEEDED');
    });
  });
});

describe('Mail outbox delivery', () => {
  async function enqueue(to: string): Promise<string> {
    return stack()
      .orm.em.fork()
      .transactional((em) =>
        enqueueMail(em, stack().config.encryptionKeys, { kind: 'test', to, subject: 'Hello', text: 'Body' }),
      );
  }
  const settings = (smtpUrl: string) => ({
    smtpUrl,
    from: 'test@switchyard.local',
    keys: stack().config.encryptionKeys,
  });

  it('a message the SMTP server refused stays pending with the error, and the retry delivers it once', async () => {
    const to = uniqueEmail('retry');
    // A row without the post-commit kick (the sweep only takes rows older than 30 s): this test drives delivery.
    const id = newId('mail');
    await stack()
      .orm.em.fork()
      .insert(MailMessageSchema, {
        id,
        kind: 'test',
        recipient: to,
        contentEncrypted: encryptSecret(stack().config.encryptionKeys, JSON.stringify({ subject: 'Hi', text: 'Body' })),
        attempts: 0,
        lastError: null,
        sendingSince: null,
        sentAt: null,
        createdAt: new Date(),
      });
    const down = createMailActivities({ orm: stack().orm, mail: settings(`smtp://127.0.0.1:${await freePort()}`) });
    let error: unknown;
    await down.deliverMail(id).catch((caught: unknown) => (error = caught));
    expect(error).to.be.instanceOf(Error);
    const [pending] = await rows('select sent_at, attempts, last_error from mail_outbox where id = ?', [id]);
    expect(pending).to.include({ sent_at: null, attempts: 1 });
    expect(pending.last_error).to.be.a('string').and.not.empty;

    const up = createMailActivities({ orm: stack().orm, mail: settings(stack().mail.smtpUrl) });
    expect(await up.deliverMail(id)).to.equal('sent');
    expect(await up.deliverMail(id)).to.equal('already_sent');
    const [sent] = await rows('select sent_at, attempts, last_error from mail_outbox where id = ?', [id]);
    expect(sent).to.include({ attempts: 2, last_error: null });
    expect(sent.sent_at).to.not.equal(null);
    const [mail] = await waitForMail(to);
    expect(mail.messageId).to.equal(`${id}@switchyard`);
  });

  it('never hands a sent message over again', async () => {
    const to = uniqueEmail('once');
    const id = await enqueue(to);
    await waitForMail(to);
    const activities = createMailActivities({ orm: stack().orm, mail: settings(stack().mail.smtpUrl) });
    expect(await activities.deliverMail(id)).to.equal('already_sent');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await mailTo(to)).to.have.length(1);
  });
});

describe('Mail outbox sweep', () => {
  it('is scheduled every minute on the webhooks queue and starts delivery of a row whose kick was lost', async () => {
    const connection = await Connection.connect({ address: stack().config.temporal.address });
    try {
      const client = new Client({ connection, namespace: stack().config.temporal.namespace });
      const description = await client.schedule.getHandle(MAIL_SWEEP_SCHEDULE_ID).describe();
      if (description.action.type !== 'startWorkflow') throw new Error('expected a startWorkflow action');
      expect(description.action.workflowType).to.equal('mailOutboxSweepWorkflow');
      expect(description.action.taskQueue).to.equal(TASK_QUEUES.webhooks);

      const to = uniqueEmail('swept');
      await stack()
        .orm.em.fork()
        .insert(MailMessageSchema, {
          id: newId('mail'),
          kind: 'test',
          recipient: to,
          contentEncrypted: encryptSecret(stack().config.encryptionKeys, JSON.stringify({ subject: 'S', text: 'T' })),
          attempts: 0,
          lastError: null,
          sendingSince: null,
          sentAt: null,
          createdAt: new Date(Date.now() - 60_000),
        });
      const started = await client.workflow.execute(mailOutboxSweepWorkflow, {
        workflowId: `test-mail-sweep-${newId('mail')}`,
        taskQueue: TASK_QUEUES.webhooks,
      });
      expect(started.started).to.be.at.least(1);
      await waitForMail(to);
    } finally {
      await connection.close();
    }
  });
});
