/**
 * events as the webhook outbox (fanned_out_at null = not yet fanned out). Events are recorded by
 * domain/events/events.outbox.ts; the worker's fan-out (the listener's, right after the commit, and the sweep's)
 * claims them row-locked, reads their configurations and marks them here, in the transaction that starts their
 * delivery workflows.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { EventSchema, type EventRecord } from '../entities';
import { findOneRow } from '../reads';

export interface NewEvent {
  id: string;
  organizationId: string;
  merchantId: string;
  type: string;
  /** Its object's mode: false for test data (a test-mode connector's charge, a test clock's subscription). */
  livemode: boolean;
  data: Record<string, unknown>;
  /** The W3C trace context of the change that recorded it (null: no trace); its deliveries continue that trace. */
  traceparent: string | null;
}

/** What the database gave the event: when (its clock), its place in the order, and the fanned-out mark. */
export interface InsertedEvent {
  createdAt: Date;
  seq: number;
  /** Null when left in the outbox. */
  fannedOutAt: Date | null;
}

/**
 * Inserts an event and, in the same statement, either NOTIFYs `channel` with its id (some active configuration of
 * the merchant takes it: the subscribedConfigIds rule) or records it as already fanned out (none does, so there is
 * nothing to deliver and the outbox has no work for it). The subscription check sees configurations committed before
 * this statement started (READ COMMITTED): see docs/webhooks.md, "Events nobody subscribes to".
 *
 * created_at is the database's clock at the insert (clock_timestamp(), one clock for the API and every worker; not
 * now(), the start of the writing transaction) and `seq` the insert's place in the order: under the object's row
 * lock, after the change the caller waited for (Migration20261242100000).
 */
export async function insertEvent(em: EntityManager, event: NewEvent, channel: string): Promise<InsertedEvent> {
  const rows = await em.execute<{ created_at: string; seq: string; fanned_out_at: string | null }[]>(
    `with stamp as materialized (
       select clock_timestamp()::timestamptz(3) as at
     ), subscribed as (
       select exists (select 1 from merchant_webhook_configs c
                       where c.merchant_id = ? and c.is_active and c.created_at <= (select at from stamp)
                         and (c.event_filter is null or ?::text = any(c.event_filter))) as any_config
     ), inserted as (
       insert into events (id, organization_id, merchant_id, type, livemode, data, traceparent, created_at, fanned_out_at)
       select ?, ?, ?, ?, ?, ?::json, ?, (select at from stamp), case when s.any_config then null else now() end
         from subscribed s
       returning id, created_at, seq, fanned_out_at
     )
     select to_json(i.created_at) #>> '{}' as created_at, i.seq::text as seq,
            to_json(i.fanned_out_at) #>> '{}' as fanned_out_at,
            case when i.fanned_out_at is null then pg_notify(?, i.id) end as notified
       from inserted i`,
    [
      event.merchantId,
      event.type,
      event.id,
      event.organizationId,
      event.merchantId,
      event.type,
      event.livemode,
      JSON.stringify(event.data),
      event.traceparent,
      channel,
    ],
  );
  const [row] = rows;
  return {
    createdAt: new Date(row.created_at),
    seq: Number(row.seq),
    fannedOutAt: row.fanned_out_at === null ? null : new Date(row.fanned_out_at),
  };
}

export interface OutboxEvent {
  id: string;
  merchantId: string;
  type: string;
  traceparent: string | null;
}

type OutboxRow = { id: string; merchant_id: string; type: string; traceparent: string | null };
const outboxEvent = (row: OutboxRow): OutboxEvent => ({
  id: row.id,
  merchantId: row.merchant_id,
  type: row.type,
  traceparent: row.traceparent,
});

/**
 * Locks these events where still in the outbox (SKIP LOCKED: another process fanning one out right now leaves it
 * out of the result).
 */
export async function claimForFanOut(em: EntityManager, eventIds: string[]): Promise<OutboxEvent[]> {
  if (eventIds.length === 0) return [];
  const rows = await em.execute<OutboxRow[]>(
    `select id, merchant_id, type, traceparent from events
      where id in (?) and fanned_out_at is null
      order by seq
        for update skip locked`,
    [eventIds],
  );
  return rows.map(outboxEvent);
}

/**
 * The active configurations that take each of these events: same merchant, created before it, filter matching.
 * In event order (seq), then configuration creation order.
 */
export async function subscribedConfigIds(
  em: EntityManager,
  eventIds: string[],
): Promise<{ eventId: string; configId: string }[]> {
  if (eventIds.length === 0) return [];
  const rows = await em.execute<{ event_id: string; config_id: string }[]>(
    `select e.id as event_id, c.id as config_id from merchant_webhook_configs c, events e
      where e.id in (?) and c.merchant_id = e.merchant_id and c.is_active and c.created_at <= e.created_at
        and (c.event_filter is null or e.type = any(c.event_filter))
      order by e.seq, c.created_at, c.id`,
    [eventIds],
  );
  return rows.map((row) => ({ eventId: row.event_id, configId: row.config_id }));
}

export async function markFannedOut(em: EntityManager, eventIds: string | string[]): Promise<void> {
  const ids = Array.isArray(eventIds) ? eventIds : [eventIds];
  if (ids.length === 0) return;
  await em.execute('update events set fanned_out_at = now() where id in (?)', [ids]);
}

/** The oldest events still in the outbox (in the order they were recorded). */
export async function unfannedEventIds(em: EntityManager, limit: number): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select id from events
      where fanned_out_at is null
      order by seq limit ?`,
    [limit],
  );
  return rows.map((row) => row.id);
}

/** An event with one configuration (config_* null when it is gone): what one delivery attempt sends. */
export interface DeliveryTarget {
  event_id: string;
  organization_id: string;
  merchant_id: string;
  type: string;
  livemode: boolean;
  data: Record<string, unknown>;
  /** ISO 8601 (the driver returns timestamps as text; to_json gives an unambiguous format). */
  created_at: string;
  traceparent: string | null;
  config_id: string | null;
  url: string | null;
  is_active: boolean | null;
  secret_encrypted: string | null;
  /** Set only while the rotation overlap lasts (compared with the database clock). */
  previous_secret_encrypted: string | null;
}

/**
 * One event with one configuration of the event's own merchant (config_* null when it is gone, or is another
 * merchant's): what one delivery attempt sends. Undefined when the event does not exist.
 */
export async function deliveryTarget(
  em: EntityManager,
  eventId: string,
  configId: string,
): Promise<DeliveryTarget | undefined> {
  const [row] = await em.execute<DeliveryTarget[]>(
    `select e.id as event_id, e.organization_id, e.merchant_id, e.type, e.livemode, e.data, to_json(e.created_at) #>> '{}' as created_at, e.traceparent,
            c.id as config_id, c.url, c.is_active, c.secret_encrypted,
            case when c.previous_secret_expires_at > now() then c.previous_secret_encrypted end as previous_secret_encrypted
       from events e
       left join merchant_webhook_configs c on c.id = ? and c.merchant_id = e.merchant_id
      where e.id = ?`,
    [configId, eventId],
  );
  return row;
}

/** The merchant's event to present (a plain row, not managed: never flush it), or null. */
export async function eventToPresent(
  em: EntityManager,
  merchantId: string,
  eventId: string,
): Promise<EventRecord | null> {
  return findOneRow(em, EventSchema, { id: eventId, merchantId });
}
