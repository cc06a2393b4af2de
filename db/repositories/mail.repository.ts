/**
 * mail_messages: the outbox (domain/mail/mail.outbox.ts) inserts and purges messages through the entity; the
 * NOTIFY that wakes the worker's listener (worker/outbox-listener.ts) is raw SQL and lives here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** NOTIFYs `channel` with the message id; delivered to listeners when the caller's transaction commits. */
export async function notifyMailQueued(em: EntityManager, channel: string, mailId: string): Promise<void> {
  await em.execute('select pg_notify(?, ?)', [channel, mailId]);
}
