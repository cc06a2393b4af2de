import { BigIntType, EntitySchema } from '@mikro-orm/core';
import { createdAt } from './timestamps';

/**
 * One event of Document 1's catalog (evt_), written by its producer in the producer's own transaction
 * (api/modules/events/events.service.ts recordEvent). Immutable once written, except the outbox mark.
 */
export interface EventRecord {
  id: string;
  organizationId: string;
  merchantId: string;
  /** A name from domain/events/events.outbox.ts. */
  type: string;
  /** The object's mode: false for test data. */
  livemode: boolean;
  /** The resource, shaped like its API resource (data.object of the Event envelope). */
  data: Record<string, unknown>;
  /** The database's clock when the event was recorded. */
  createdAt: Date;
  /**
   * The order events were recorded in: for one object's events, the order its changes happened (recorded under its
   * row lock). What lists, the outbox and the fan-out order by; created_at only says when.
   */
  seq: number;
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
    livemode: { type: 'boolean' },
    data: { type: 'json', columnType: 'json' },
    createdAt,
    // Numbered by the database (identity) on insert; events are inserted only by db/repositories/events.repository.ts.
    seq: { type: new BigIntType('number'), generated: 'always as identity' },
    fannedOutAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});
