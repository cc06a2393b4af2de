/** Checkout event tracking (paths and shapes are ours: see docs/api-decisions.md). */
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { pagination } from '../../http/pagination';
import { CheckoutEventSchema, ListEventsQuery, RecordEventBody, SessionParams } from './checkout-sessions.schema';
import { presentEvent } from './checkout-sessions.presenter';
import { listEvents, recordClientEvent } from './checkout-events.service';
import { getCheckoutSession } from './checkout-sessions.service';

const tags = ['Checkout sessions'];
const keys = ['merchant', 'organization'] as const;

export const checkoutEventRoutes = [
  defineRoute({
    method: 'post',
    path: '/checkout-sessions/:id/events',
    summary: "Record a funnel event; ip_address and user_agent default to the request's own",
    tags,
    auth: { keys, scopes: ['checkout:write'] },
    params: SessionParams,
    body: RecordEventBody,
    responses: { 201: CheckoutEventSchema, 200: CheckoutEventSchema },
    envelope: 'wrapped',
    idempotency: 'optional',
    async handler({ em, merchantId, params, body, client }) {
      const session = await getCheckoutSession(em, merchantId, params.id);
      return { status: 201, data: presentEvent(await recordClientEvent(em, session, body, client)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/checkout-sessions/:id/events',
    summary: "List a checkout session's events, newest first",
    tags,
    auth: { keys, scopes: ['checkout:read'] },
    params: SessionParams,
    query: ListEventsQuery,
    responses: { 200: Type.Array(CheckoutEventSchema) },
    envelope: 'wrapped',
    pagination: 'nested',
    async handler({ em, merchantId, params, query }) {
      const session = await getCheckoutSession(em, merchantId, params.id);
      const { items, total } = await listEvents(em, session.id, query);
      return { status: 200, data: items.map(presentEvent), pagination: pagination(query, total) };
    },
  }),
];
