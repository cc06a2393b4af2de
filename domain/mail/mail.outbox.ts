/**
 * The mail outbox: the one way the service sends e-mail. enqueueMail writes the message into the caller's
 * transaction (a message exists exactly when the decision to send it committed) and NOTIFYs the worker, which
 * starts its delivery workflow right after commit (worker/outbox-listener.ts); a sweep every minute starts any
 * whose kick was lost. Delivery itself is activities/mail/.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MailMessageSchema, type MailMessage } from '../../db/entities';
import { notifyMailQueued } from '../../db/repositories/mail.repository';
import { decryptSecret, encryptSecret, type KeyMaterial } from '../platform/crypto';
import { newId } from '../platform/ids';

export const MAIL_CHANNEL = 'switchyard_mail';

export interface MailContent {
  subject: string;
  text: string;
}

export async function enqueueMail(
  em: EntityManager,
  keys: KeyMaterial,
  message: { kind: string; to: string } & MailContent,
): Promise<string> {
  if (!em.isInTransaction()) throw new Error('enqueueMail must run inside the transaction that decides to send');
  const id = newId('mail');
  await em.insert(MailMessageSchema, {
    id,
    kind: message.kind,
    recipient: message.to,
    contentEncrypted: encryptSecret(keys, JSON.stringify({ subject: message.subject, text: message.text })),
    attempts: 0,
    lastError: null,
    sendingSince: null,
    sentAt: null,
    createdAt: new Date(),
  });
  await notifyMailQueued(em, MAIL_CHANNEL, id);
  return id;
}

export function openMailContent(keys: KeyMaterial, message: MailMessage): MailContent {
  return JSON.parse(decryptSecret(keys, message.contentEncrypted)) as MailContent;
}

/** Messages not yet accepted by the SMTP server and older than `olderThanSeconds` (the sweep's catch-up list). */
export async function pendingMailIds(em: EntityManager, olderThanSeconds: number, limit = 500): Promise<string[]> {
  const rows = await em.find(
    MailMessageSchema,
    { sentAt: null, createdAt: { $lt: new Date(Date.now() - olderThanSeconds * 1000) } },
    { fields: ['id'], orderBy: { createdAt: 'asc' }, limit },
  );
  return rows.map((row) => row.id);
}

/**
 * Deletes messages the SMTP server accepted before `sentBefore`: a sent row is never handed over again (the
 * delivery activity answers 'missing' for a row that is gone), and its sealed content carries one-time tokens.
 */
export async function purgeSentMail(em: EntityManager, sentBefore: Date): Promise<number> {
  return em.nativeDelete(MailMessageSchema, { sentAt: { $lt: sentBefore } });
}
