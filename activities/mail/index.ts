/**
 * Mail delivery: hands one outbox row to the SMTP server (nodemailer, SMTP_URL) and marks it sent; and the sweep
 * that starts delivery workflows for rows whose post-commit kick was lost.
 *
 * Sent at most once per acceptance: a row already marked sent is never handed over again, and a message is only
 * marked after the server accepted it. The one window left — the process dying between the server's acceptance
 * and the mark — resends with the same Message-ID (<mail_…@switchyard>), which mail clients show once.
 * Without an SMTP server (SMTP_URL=file:///dir, local runs without Mailpit) messages are written there as .eml.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import type { Orm } from '../../db/orm';
import { MailMessageSchema } from '../../db/entities';
import type { KeyMaterial } from '../../domain/platform/crypto';
import { openMailContent, pendingMailIds } from '../../domain/mail/mail.outbox';
import {
  MAIL_DELIVERY_WORKFLOW,
  mailDeliveryStartOptions,
  type MailDeliveryWorkflow,
} from '../../workflows/mail-delivery.shared';

export interface MailSettings {
  smtpUrl: string;
  from: string;
  keys: KeyMaterial;
}

export interface MailDeps {
  orm: Orm;
  /** Required for deliverMail; the worker passes mailSettingsOf(config). */
  mail?: MailSettings;
  temporalClient?: Client;
}

/** Rows younger than this are left to their post-commit kick. */
const SWEEP_AFTER_SECONDS = 30;

function transportFor(smtpUrl: string): { send(message: SendMailOptions): Promise<unknown> } {
  if (smtpUrl.startsWith('file:')) {
    const dir = fileURLToPath(smtpUrl);
    const stream: Transporter = nodemailer.createTransport({ streamTransport: true, buffer: true });
    return {
      async send(message) {
        const info = (await stream.sendMail(message)) as { message: Buffer };
        fs.mkdirSync(dir, { recursive: true });
        const name = String(message.messageId).replace(/[^\w.@-]/g, '');
        fs.writeFileSync(path.join(dir, `${name}.eml`), info.message, { mode: 0o600 });
      },
    };
  }
  const smtp = nodemailer.createTransport(smtpUrl);
  return { send: (message) => smtp.sendMail(message) };
}

export async function startMailDelivery(client: Client, taskQueue: string, mailId: string): Promise<boolean> {
  try {
    await client.workflow.start<MailDeliveryWorkflow>(
      MAIL_DELIVERY_WORKFLOW,
      mailDeliveryStartOptions(mailId, taskQueue),
    );
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}

export function createMailActivities({ orm, mail, temporalClient }: MailDeps) {
  let transport: ReturnType<typeof transportFor> | undefined;
  return {
    async deliverMail(mailId: string): Promise<'sent' | 'already_sent' | 'missing'> {
      if (!mail) throw new Error('deliverMail needs the mail settings');
      const em = orm.em.fork();
      const message = await em.findOne(MailMessageSchema, { id: mailId });
      if (!message) return 'missing';
      if (message.sentAt) return 'already_sent';
      const content = openMailContent(mail.keys, message);
      await em.nativeUpdate(
        MailMessageSchema,
        { id: mailId },
        { sendingSince: new Date(), attempts: message.attempts + 1 },
      );
      try {
        await (transport ??= transportFor(mail.smtpUrl)).send({
          from: mail.from,
          to: message.recipient,
          subject: content.subject,
          text: content.text,
          messageId: `<${mailId}@switchyard>`,
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        await em.nativeUpdate(MailMessageSchema, { id: mailId }, { lastError: reason.slice(0, 500) });
        throw error;
      }
      await em.nativeUpdate(MailMessageSchema, { id: mailId, sentAt: null }, { sentAt: new Date(), lastError: null });
      return 'sent';
    },

    async startPendingMailDeliveries(): Promise<number> {
      if (!temporalClient) throw new Error('startPendingMailDeliveries needs a Temporal client');
      const taskQueue = Context.current().info.taskQueue;
      let started = 0;
      for (const id of await pendingMailIds(orm.em.fork(), SWEEP_AFTER_SECONDS)) {
        if (await startMailDelivery(temporalClient, taskQueue, id)) started += 1;
      }
      return started;
    },
  };
}
