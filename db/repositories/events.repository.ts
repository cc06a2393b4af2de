/**
 * events as the webhook outbox (fanned_out_at null = not yet fanned out). Events are recorded by
 * domain/events/events.outbox.ts; the worker's fan-out claims, reads and marks them here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface OutboxEvent {
  id: string;
  merchantId: string;
  type: string;
}

/** Locks an event still in the outbox (SKIP LOCKED: another process fanning it out right now means undefined). */
export async function claimForFanOut(em: EntityManager, eventId: string): Promise<OutboxEvent | undefined> {
  const [row] = await em.execute<{ id: string; merchant_id: string; type: string }[]>(
    'select id, merchant_id, type from events where id = ? and fanned_out_at is null for update skip locked',
    [eventId],
  );
  return row && { id: row.id, merchantId: row.merchant_id, type: row.type };
}

/** The active configurations that take this event: same merchant, created before it, filter matching. */
export async function subscribedConfigIds(em: EntityManager, eventId: string): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select c.id from merchant_webhook_configs c, events e
      where e.id = ? and c.merchant_id = e.merchant_id and c.is_active and c.created_at <= e.created_at
        and (c.event_filter is null or e.type = any(c.event_filter))
      order by c.created_at, c.id`,
    [eventId],
  );
  return rows.map((row) => row.id);
}

export async function markFannedOut(em: EntityManager, eventId: string): Promise<void> {
  await em.execute('update events set fanned_out_at = now() where id = ?', [eventId]);
}

/** The oldest events still in the outbox. */
export async function unfannedEventIds(em: EntityManager, limit: number): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    'select id from events where fanned_out_at is null order by created_at, id limit ?',
    [limit],
  );
  return rows.map((row) => row.id);
}
