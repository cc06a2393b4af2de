/** GET /events and GET /events/:id (beyond the spec): what was, or will be, sent to webhook endpoints. */
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { EventObject, EventParams, GetEventQuery, ListEventsQuery } from './events.schema';
import { presentEvent } from '../../../domain/events/events.outbox';
import { getEvent, listEvents } from './events.service';

const tags = ['Events'];
// Reading events is part of operating webhooks, so it shares their read scope.
const read = { keys: ['merchant', 'organization'], scopes: ['webhooks:read'] } as const;

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/events',
    summary: 'List events, newest first (type accepts several values)',
    tags,
    auth: read,
    query: ListEventsQuery,
    responses: { 200: Type.Array(EventObject) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, query }) {
      const { items, total } = await listEvents(em, merchantId, query);
      return { status: 200, data: items.map(presentEvent), pagination: pagination(query, total) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/events/:id',
    summary: 'Get an event: the Event envelope as delivered, plus merchant_id',
    tags,
    auth: read,
    params: EventParams,
    query: GetEventQuery,
    responses: { 200: EventObject },
    envelope: 'wrapped',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: presentEvent(await getEvent(em, merchantId, params.id)) };
    },
  }),
];
