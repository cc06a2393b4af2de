/**
 * The events outbox: the one way every area records an event (Document 1, "Events"), the catalog of names it
 * records, and the envelope each event is read and delivered as.
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

// ── The catalog ─────────────────────────────────────────────────────────────────────────────────────────────

/**
 * The event catalog of Document 1 ("Events"): every name a producer may record and a webhook configuration may
 * filter on. Each has its trigger here and in docs/events.md (a unit test keeps the two in step), and each has a
 * producer in the code but transaction.refund_cancelled (test/unit/event-producers.test.ts scans for them).
 */
export const EVENT_CATALOG = {
  // Transaction events
  'transaction.created': 'A transaction was created and accepted for processing',
  'transaction.pending': 'The charge awaits an asynchronous outcome (for example pix, boleto)',
  'transaction.action_required':
    'The buyer must authenticate the card (3-D Secure challenge): send them to data.object.next_action.url before next_action.expires_at',
  'transaction.pre_authorized': 'Funds authorized but not captured (capture false)',
  'transaction.authorized': 'The charge succeeded (captured unless pre-authorization only)',
  'transaction.capture_pending': 'A capture was requested and is in progress',
  'transaction.failed': 'Declined or could not complete',
  'transaction.canceled': 'Canceled before completion',
  'transaction.voided': 'An authorization was voided before capture',
  'transaction.charged_back': 'A chargeback was opened',
  'transaction.expired': 'A pending charge expired unpaid',
  'transaction.in_doubt': 'A provider never told what became of a charge, capture or void within the deadline',
  // Refund events
  'transaction.refund_created': 'A refund was created',
  'transaction.refund_pending': 'The provider is processing a refund',
  'transaction.refunded': 'The transaction was fully refunded',
  'transaction.partially_refunded': 'A partial refund settled; a balance remains captured',
  'transaction.refund_failed': 'A refund could not complete',
  'transaction.refund_cancelled': 'A pending refund was cancelled',
  // Dispute events
  'transaction.dispute_created': "A dispute was opened by the cardholder's bank",
  'transaction.dispute_updated': 'A dispute received new information or changed status',
  'transaction.dispute_won': "A dispute was decided in the merchant's favour",
  'transaction.dispute_lost': "A dispute was decided in the cardholder's favour",
  'transaction.dispute_closed': 'A dispute was closed',
  // Payment method event
  'payment_method.action_required':
    'A stored payment method needs attention (e.g. card no longer valid, no replacement)',
  // Subscription events
  'subscription.created': 'A subscription was created',
  'subscription.renewed': 'A renewal charge succeeded and the subscription advanced a period',
  'subscription.dunning': 'A renewal charge failed and the subscription entered dunning',
  'subscription.reactivated': 'The subscription returned to active after dunning or a pause',
  'subscription.upgraded': 'Moved to a higher-value offer',
  'subscription.downgraded': 'Moved to a lower-value offer',
  'subscription.payment_method_changed': 'The payment instrument was changed',
  'subscription.paused': 'Paused',
  'subscription.resumed': 'A paused subscription was resumed',
  'subscription.cancelled': 'Cancelled',
  'subscription.expired': 'Reached the end of its term',
  // Connector health events
  'connector.circuit_opened': "A connector's circuit opened: routing skips it until a probe succeeds",
  'connector.circuit_closed': "A connector's circuit closed: routing uses it again",
  // Card-testing event
  'card_verifications.paused':
    "Most of a public key's new-card verifications and payments were declined: the checkouts, addresses and cards that declined are paused until the window ends",
} as const;

export type EventType = keyof typeof EVENT_CATALOG;

export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as EventType[];

export const isEventType = (value: string): value is EventType => Object.hasOwn(EVENT_CATALOG, value);

// ── Recording ────────────────────────────────────────────────────────────────────────────────────────────────

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
    throw new Error(
      `Unknown event type "${String(input.type)}": add it to EVENT_CATALOG in domain/events/events.outbox.ts`,
    );
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

// ── The envelope ─────────────────────────────────────────────────────────────────────────────────────────────

/**
 * The Event envelope of Document 1, exactly what is POSTed to a webhook endpoint: {id, type, livemode, created_at,
 * data: {object}}.
 */
export function eventEnvelope(event: Pick<EventRecord, 'id' | 'type' | 'livemode' | 'createdAt' | 'data'>) {
  return {
    id: event.id,
    type: event.type,
    livemode: event.livemode,
    created_at: event.createdAt.toISOString(),
    data: { object: event.data },
  };
}

/** An event as the API reads it: its envelope plus merchant_id. */
export function presentEvent(event: EventRecord) {
  return { ...eventEnvelope(event), merchant_id: event.merchantId };
}
