/**
 * Checkout tracking events: the funnel of one purchase (page views, steps, payment attempts). Callers record
 * the client-side steps; the service itself records customer_identified and abandoned when they happen.
 */
import { isIP } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import { CheckoutEventSchema, type CheckoutEvent, type CheckoutSession } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { newId } from '../../../domain/platform/ids';
import type { RecordEventBody, SERVICE_EVENT_TYPES } from './checkout-sessions.schema';

type RecordInput = Omit<Static<typeof RecordEventBody>, 'merchant_id'>;

/** Who sent the HTTP request: the merchant's server for server-to-server calls, so the body may override. */
export interface RequestClient {
  ip: string;
  userAgent: string | null;
}

function newEvent(
  em: EntityManager,
  session: CheckoutSession,
  fields: Partial<CheckoutEvent> & { eventType: string },
): CheckoutEvent {
  return em.create(CheckoutEventSchema, {
    id: newId('cke'),
    merchantId: session.merchantId,
    checkoutSessionId: session.id,
    sourceUrl: null,
    utmSource: null,
    utmMedium: null,
    utmCampaign: null,
    ipAddress: null,
    userAgent: null,
    metadata: null,
    ...fields,
  } as CheckoutEvent);
}

/** Events the service records as a side effect of identify, PATCH and abandon (flushed with the session). */
export function recordServiceEvent(
  em: EntityManager,
  session: CheckoutSession,
  eventType: (typeof SERVICE_EVENT_TYPES)[number],
  metadata: Record<string, unknown> | null = null,
): CheckoutEvent {
  return newEvent(em, session, { eventType, metadata });
}

export async function recordClientEvent(
  em: EntityManager,
  session: CheckoutSession,
  input: RecordInput,
  client: RequestClient,
): Promise<CheckoutEvent> {
  if (input.ip_address !== undefined && isIP(input.ip_address) === 0) {
    throw errors.invalidValue('ip_address', 'must be an IPv4 or IPv6 address');
  }
  const event = newEvent(em, session, {
    eventType: input.event_type,
    sourceUrl: input.source_url ?? null,
    utmSource: input.utm_source ?? null,
    utmMedium: input.utm_medium ?? null,
    utmCampaign: input.utm_campaign ?? null,
    ipAddress: input.ip_address ?? client.ip,
    userAgent: input.user_agent ?? client.userAgent,
    metadata: input.metadata ?? null,
  });
  await em.flush();
  return event;
}

export async function listEvents(
  em: EntityManager,
  sessionId: string,
  filter: PageRequest & { event_type?: string[] },
): Promise<{ items: CheckoutEvent[]; total: number }> {
  const where = {
    checkoutSessionId: sessionId,
    ...(filter.event_type ? { eventType: { $in: filter.event_type } } : {}),
  };
  const [items, total] = await em.findAndCount(CheckoutEventSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  return { items, total };
}

/** The newest events, embedded in GET /checkout-sessions/:id?include_events=true. */
export async function recentEvents(em: EntityManager, sessionId: string, limit: number): Promise<CheckoutEvent[]> {
  return em.find(
    CheckoutEventSchema,
    { checkoutSessionId: sessionId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit },
  );
}
