import { EntitySchema } from '@mikro-orm/core';
import { createdAt } from './timestamps';

/**
 * One event of Document 1's catalog (evt_), written by its producer in the producer's own transaction
 * (api/modules/events/events.service.ts recordEvent). Immutable once written, except the outbox mark.
 */
export interface EventRecord {
  id: string;
  organizationId: string;
  merchantId: string;
  /** A name from domain/events/events.catalog.ts. */
  type: string;
  /** The resource, shaped like its API resource (data.object of the Event envelope). */
  data: Record<string, unknown>;
  createdAt: Date;
  /** Set once every matching webhook configuration got attempt 1 or its delivery workflow; null = still in the outbox. */
  fannedOutAt: Date | null;
}

export const EventSchema = new EntitySchema<EventRecord>({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    merchantId: { type: 'string' },
    type: { type: 'string' },
    data: { type: 'json', columnType: 'json' },
    createdAt,
    fannedOutAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});
