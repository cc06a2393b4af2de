import { EntitySchema } from '@mikro-orm/core';
import { createdAt } from './timestamps';

/** One outgoing e-mail; its content (subject, text) is sealed at rest (it carries one-time tokens). */
export interface MailMessage {
  id: string;
  /** What it is (invitation, password_reset…), for operators; never the content. */
  kind: string;
  recipient: string;
  contentEncrypted: string;
  attempts: number;
  lastError: string | null;
  /** Set just before a send is attempted: a crash after it means the message may have gone out. */
  sendingSince: Date | null;
  sentAt: Date | null;
  createdAt: Date;
}

export const MailMessageSchema = new EntitySchema<MailMessage>({
  name: 'MailMessage',
  tableName: 'mail_outbox',
  properties: {
    id: { type: 'string', primary: true },
    kind: { type: 'string' },
    recipient: { type: 'string' },
    contentEncrypted: { type: 'string', hidden: true },
    attempts: { type: 'integer' },
    lastError: { type: 'string', nullable: true },
    sendingSince: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    sentAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt,
  },
});
