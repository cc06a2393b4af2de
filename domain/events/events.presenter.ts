/** The Event envelope of Document 1 — the very body a webhook delivery carries — plus merchant_id for readers. */
import type { EventRecord } from '../../db/entities';

/** Exactly what is POSTed to a webhook endpoint: {id, type, livemode, created_at, data: {object}}. */
export function eventEnvelope(event: Pick<EventRecord, 'id' | 'type' | 'livemode' | 'createdAt' | 'data'>) {
  return {
    id: event.id,
    type: event.type,
    livemode: event.livemode,
    created_at: event.createdAt.toISOString(),
    data: { object: event.data },
  };
}

export function presentEvent(event: EventRecord) {
  return { ...eventEnvelope(event), merchant_id: event.merchantId };
}
