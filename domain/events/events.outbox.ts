/**
 * The events outbox: the one way every area records an event (Document 1, "Events").
 *
 * recordEvent writes into the caller's own transaction, so an event exists exactly when the change it reports
 * committed. The events table is the webhook outbox: rows with fanned_out_at null are fanned out to the
 * merchant's webhook configurations by the worker — kicked right after commit by a NOTIFY (PostgreSQL delivers
 * it only if the transaction commits) and swept periodically for any kick that was lost (see docs/webhooks.md).
 * An event no configuration takes is inserted already fanned out and sends no NOTIFY: nothing to deliver.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventRecord } from '../../db/entities';
import { insertEvent } from '../../db/repositories/events.repository';
import { newId } from '../platform/ids';
import { activeTraceparent } from '../platform/tracing';
import { isEventType, type EventType } from './events.catalog';

/** The PostgreSQL NOTIFY channel the worker's outbox listener (worker/outbox-listener.ts) listens on. */
export const EVENTS_CHANNEL = 'switchyard_events';

export interface RecordEventInput {
  organizationId: string;
  merchantId: string;
  /** The object's mode (a transaction's or subscription's livemode, a connector's); events inherit it. */
  livemode: boolean;
  type: EventType;
  /** The resource as its API presents it (a presenter's output); delivered as data.object. */
  object: Record<string, unknown>;
}

/**
 * Records one event in the caller's transaction (required: an event must never outlive a rolled-back change)
 * and asks the worker to fan it out once that transaction commits — or, when no webhook configuration of the merchant
 * takes it, records it as already fanned out.
 */
export async function recordEvent(em: EntityManager, input: RecordEventInput): Promise<EventRecord> {
  if (!isEventType(input.type))
    throw new Error(`Unknown event type "${String(input.type)}": add it to domain/events/events.catalog.ts`);
  if (!em.isInTransaction())
    throw new Error('recordEvent must be called inside the transaction that makes the change it reports');
  const event = {
    id: newId('evt'),
    organizationId: input.organizationId,
    merchantId: input.merchantId,
    type: input.type,
    livemode: input.livemode,
    // Plain JSON (dates become ISO strings), exactly what every delivery will carry.
    data: JSON.parse(JSON.stringify(input.object)) as Record<string, unknown>,
  };
  // Stored beside the event, not in it: the delivered envelope stays exactly the event.
  const traceparent = activeTraceparent();
  // One statement: the row, and either the NOTIFY (delivered to listeners only when, and if, the surrounding
  // transaction commits) or, when no configuration takes the event, the fanned-out mark — no fan-out work at all.
  // The database stamps it (its clock and its place in the order: events.repository.ts), not this process's clock.
  const inserted = await insertEvent(em, { ...event, traceparent }, EVENTS_CHANNEL);
  return { ...event, ...inserted };
}
