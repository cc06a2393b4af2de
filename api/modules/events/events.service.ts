/** Events (Document 1, "Events"): the read side of GET /events. Events are written by domain/events/events.outbox.ts. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { EventSchema, type EventRecord } from '../../../db/entities';
import { eventToPresent } from '../../../db/repositories/events.repository';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';

export interface EventFilter extends PageRequest {
  type?: string[];
  date_from?: string;
  date_to?: string;
  livemode?: boolean;
}

export async function listEvents(
  em: EntityManager,
  merchantId: string,
  filter: EventFilter,
): Promise<{ items: EventRecord[]; total: number }> {
  if (filter.date_from && filter.date_to && Date.parse(filter.date_from) > Date.parse(filter.date_to)) {
    throw errors.invalidValue('date_from', 'must not be after date_to');
  }
  const where = {
    merchantId,
    ...(filter.type ? { type: { $in: filter.type } } : {}),
    ...(filter.livemode !== undefined ? { livemode: filter.livemode } : {}),
    ...(filter.date_from || filter.date_to
      ? {
          createdAt: {
            ...(filter.date_from ? { $gte: new Date(filter.date_from) } : {}),
            ...(filter.date_to ? { $lte: new Date(filter.date_to) } : {}),
          },
        }
      : {}),
  };
  // Newest first in the order the events were recorded (seq), not by created_at: for one object, an event recorded
  // after another (under its row lock) is listed after it, whatever the clocks say. Pages stay page/limit.
  const [items, total] = await em.findAndCount(EventSchema, where, {
    orderBy: { seq: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  return { items, total };
}

export async function getEvent(em: EntityManager, merchantId: string, id: string): Promise<EventRecord> {
  const event = await eventToPresent(em, merchantId, id);
  if (!event) throw errors.notFound('No such event');
  return event;
}
