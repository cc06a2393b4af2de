/**
 * Checkout session rules of Document 2: creation with a buyer and price snapshots, reads that honour
 * expires_at, and the customer / currency / expiry changes allowed while the session waits for its buyer.
 */
import { LockMode, type FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import {
  CheckoutItemSchema,
  CheckoutSessionSchema,
  type CheckoutEvent,
  type CheckoutItem,
  type CheckoutSession,
  type CheckoutStatus,
  type Customer,
} from '../../../db/entities';
import { flushOrConflict } from '../../http/db-errors';
import { errors } from '../../../domain/platform/errors';
import type { AppEnv } from '../../../domain/platform/config';
import { browserAddressProblem } from '../transactions/return-url.rules';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { newId } from '../../../domain/platform/ids';
import {
  findOrCreateCustomerByEmail,
  requireCustomer,
  resolveInlineCustomer,
  type InlineCustomerInput,
} from './checkout-customers.service';
import { recentEvents, recordServiceEvent } from './checkout-events.service';
import { checkoutSale, livePrice, repriceItems, snapshotItems } from './checkout-pricing.service';
import type { CreateCheckoutSessionBody, IdentifyBody, UpdateCheckoutSessionBody } from './checkout-sessions.schema';
import { MAX_EMBEDDED_EVENTS } from './checkout-sessions.schema';
import { assertOpen, effectiveStatus, effectiveStatusWhere, invalidTransition } from './checkout-status.rules';

type CreateInput = Static<typeof CreateCheckoutSessionBody>;
type UpdateInput = Static<typeof UpdateCheckoutSessionBody>;
type IdentifyInput = Static<typeof IdentifyBody>;

/** What a presenter needs: the session, its status as of the request, and whatever was asked to be embedded. */
export interface CheckoutView {
  session: CheckoutSession;
  status: CheckoutStatus;
  items?: CheckoutItem[];
  events?: CheckoutEvent[];
}

export interface CheckoutContext {
  encryptionKey: Buffer;
  appEnv: AppEnv;
  /** One clock reading per request, so a status check and the response agree. */
  now: Date;
}

const externalIdTaken = (externalSessionId: string) => () =>
  errors.conflict(
    'RESOURCE_ALREADY_EXISTS',
    'Another checkout session of this merchant already uses this external_session_id',
    {
      external_session_id: externalSessionId,
    },
  );

async function flushSession(em: EntityManager, session: CheckoutSession): Promise<void> {
  const externalId = session.externalSessionId ?? '';
  await flushOrConflict(em, { checkout_sessions_external_key: externalIdTaken(externalId) });
}

/** The buyer's browser is sent to success_url and cancel_url: 400 naming the one it may not go to. */
function redirectUrl(field: 'success_url' | 'cancel_url', value: string | undefined, appEnv: AppEnv): string | null {
  if (value === undefined) return null;
  const problem = browserAddressProblem(value, appEnv);
  if (problem) throw errors.invalidValue(field, problem);
  return value;
}

function futureDate(value: string, now: Date): Date {
  const date = new Date(value);
  if (date.getTime() <= now.getTime()) throw errors.invalidValue('expires_at', 'must be in the future');
  return date;
}

/**
 * PATCH's expires_at: Document 2 "expires_at (pushed out, must be in the future)" — later than the current
 * expiry (the same instant is a no-op), and in the future. A session without an expiry may get any future one.
 */
function pushedOut(value: string, session: CheckoutSession, now: Date): Date {
  const date = futureDate(value, now);
  if (session.expiresAt && date.getTime() < session.expiresAt.getTime()) {
    throw errors.invalidValue('expires_at', 'may only be pushed out: must not be earlier than the current expires_at');
  }
  return date;
}

function exactlyOneCustomer(input: { customer_id?: string; customer?: unknown }, required: boolean): void {
  if (input.customer_id !== undefined && input.customer !== undefined) {
    throw errors.validation({
      customer_id: ['send customer_id or customer, not both'],
      customer: ['send customer_id or customer, not both'],
    });
  }
  if (required && input.customer_id === undefined && input.customer === undefined) {
    throw errors.validation({
      customer_id: ['customer_id or customer is required'],
      customer: ['customer_id or customer is required'],
    });
  }
}

async function customerFrom(
  em: EntityManager,
  merchantId: string,
  input: { customer_id?: string; customer?: InlineCustomerInput },
  ctx: CheckoutContext,
): Promise<BoundCustomer | undefined> {
  if (input.customer_id !== undefined)
    return { ...(await requireCustomer(em, merchantId, input.customer_id)), by: 'id' };
  if (input.customer !== undefined) {
    const { id, email } = await resolveInlineCustomer(em, merchantId, input.customer, ctx.encryptionKey);
    return { id, email, name: input.customer.name ?? null, by: 'email' };
  }
  return undefined;
}

/**
 * A customer and how the checkout found it: named by id, or matched by e-mail (CheckoutSession.customerBoundBy).
 * `name` is what the checkout shows: the stored name only when the merchant's server named the customer by id.
 * Matched by e-mail it is the name the buyer typed, or none: anyone can type someone else's e-mail into a guest
 * checkout, and the stored customer's name must not come back to them.
 */
type BoundCustomer = Pick<Customer, 'id' | 'email' | 'name'> & { by: 'id' | 'email' };

/** Sets the buyer (unflushed): copies email and name, moves initiated → customer_identified, records the event. */
function attachCustomer(em: EntityManager, session: CheckoutSession, customer: BoundCustomer, name?: string): void {
  session.customerId = customer.id;
  session.customerBoundBy = customer.by;
  session.customerEmail = customer.email;
  session.customerName = name ?? customer.name;
  if (session.status === 'initiated') session.status = 'customer_identified';
  recordServiceEvent(em, session, 'customer_identified', { customer_id: customer.id });
}

async function assertExternalIdFree(
  em: EntityManager,
  merchantId: string,
  externalSessionId: string,
  selfId?: string,
): Promise<void> {
  const other = await em.findOne(CheckoutSessionSchema, { merchantId, externalSessionId });
  if (other && other.id !== selfId) throw externalIdTaken(externalSessionId)();
}

export async function createCheckoutSession(
  em: EntityManager,
  merchantId: string,
  input: CreateInput,
  ctx: CheckoutContext,
): Promise<CheckoutView> {
  exactlyOneCustomer(input, true);
  const { offerId, currency, requests } = await checkoutSale(em, merchantId, input);
  const expiresAt = input.expires_at === undefined ? null : futureDate(input.expires_at, ctx.now);
  const successUrl = redirectUrl('success_url', input.success_url, ctx.appEnv);
  const cancelUrl = redirectUrl('cancel_url', input.cancel_url, ctx.appEnv);
  if (input.external_session_id !== undefined) await assertExternalIdFree(em, merchantId, input.external_session_id);
  const customer = (await customerFrom(em, merchantId, input, ctx)) as BoundCustomer;

  const session = em.create(CheckoutSessionSchema, {
    id: newId('cks'),
    merchantId,
    mode: input.mode ?? 'payment',
    offerId,
    customerId: null,
    customerEmail: null,
    customerName: null,
    customerBoundBy: null,
    selectedCurrency: currency,
    status: 'initiated',
    externalSessionId: input.external_session_id ?? null,
    expiresAt,
    completedAt: null,
    paymentInstrumentId: null,
    successUrl,
    cancelUrl,
  } as CheckoutSession);
  // Items and events reference the session row (plain FK columns), so it is inserted first.
  await flushSession(em, session);
  const items = await snapshotItems(em, merchantId, session.id, currency, requests);
  attachCustomer(em, session, customer);
  await em.flush();
  return { session, status: effectiveStatus(session, ctx.now), items };
}

/** `lock` (mutations, inside the request transaction) serializes concurrent changes to one session. */
export async function getCheckoutSession(
  em: EntityManager,
  merchantId: string,
  id: string,
  lock = false,
): Promise<CheckoutSession> {
  const session = await em.findOne(
    CheckoutSessionSchema,
    { id, merchantId },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!session) throw errors.notFound('No such checkout session');
  return session;
}

export async function sessionItems(em: EntityManager, sessionId: string): Promise<CheckoutItem[]> {
  return em.find(CheckoutItemSchema, { checkoutSessionId: sessionId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export async function viewOf(
  em: EntityManager,
  session: CheckoutSession,
  now: Date,
  include: { items?: boolean; events?: boolean } = { items: true },
): Promise<CheckoutView> {
  return {
    session,
    status: effectiveStatus(session, now),
    ...(include.items ? { items: await sessionItems(em, session.id) } : {}),
    ...(include.events ? { events: await recentEvents(em, session.id, MAX_EMBEDDED_EVENTS) } : {}),
  };
}

export interface ListFilter extends PageRequest {
  status?: CheckoutStatus[];
  offer_id?: string;
  customer_id?: string;
  customer_email?: string;
  external_session_id?: string;
}

export async function listCheckoutSessions(
  em: EntityManager,
  merchantId: string,
  filter: ListFilter,
  now: Date,
): Promise<{ items: CheckoutView[]; total: number }> {
  const where: FilterQuery<CheckoutSession> = {
    merchantId,
    ...(filter.offer_id ? { offerId: filter.offer_id } : {}),
    ...(filter.customer_id ? { customerId: filter.customer_id } : {}),
    ...(filter.customer_email ? { customerEmail: filter.customer_email.trim().toLowerCase() } : {}),
    ...(filter.external_session_id ? { externalSessionId: filter.external_session_id } : {}),
  };
  if (filter.status) where.$and = [effectiveStatusWhere(filter.status, now)];
  const [sessions, total] = await em.findAndCount(CheckoutSessionSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  return { items: sessions.map((session) => ({ session, status: effectiveStatus(session, now) })), total };
}

/**
 * PATCH. Returns whether the session got its first expires_at, so the caller starts its expiry workflow; a push-out
 * of an existing expiry needs no Temporal call (the running workflow re-reads the row at its current deadline).
 */
export async function updateCheckoutSession(
  em: EntityManager,
  merchantId: string,
  id: string,
  input: UpdateInput,
  ctx: CheckoutContext,
): Promise<{ view: CheckoutView; firstExpiry: boolean }> {
  const immutable = (['offer_id', 'items'] as const).filter((field) => input[field] !== undefined);
  if (immutable.length > 0) {
    throw errors.validation(
      Object.fromEntries(immutable.map((field) => [field, ['cannot be changed after creation']])),
    );
  }
  exactlyOneCustomer(input, false);
  const session = await getCheckoutSession(em, merchantId, id, true);
  assertOpen(session, ctx.now, 'be updated');

  const expiresAt = input.expires_at === undefined ? undefined : pushedOut(input.expires_at, session, ctx.now);
  const items = await sessionItems(em, session.id);
  if (input.selected_currency !== undefined && input.selected_currency !== session.selectedCurrency) {
    // A setup session has no offer or items to re-price: its currency is only the card check's.
    if (session.offerId !== null) {
      if (!(await livePrice(em, session.offerId, input.selected_currency))) {
        throw errors.invalidValue('selected_currency', `the offer has no live price in ${input.selected_currency}`);
      }
      await repriceItems(em, merchantId, input.selected_currency, items);
    }
    session.selectedCurrency = input.selected_currency;
  }
  if (input.external_session_id !== undefined) {
    if (input.external_session_id !== null)
      await assertExternalIdFree(em, merchantId, input.external_session_id, session.id);
    session.externalSessionId = input.external_session_id;
  }
  const firstExpiry = expiresAt !== undefined && session.expiresAt === null;
  if (expiresAt !== undefined) session.expiresAt = expiresAt;
  const customer = await customerFrom(em, merchantId, input, ctx);
  if (customer) attachCustomer(em, session, customer);
  await flushSession(em, session);
  return { view: { session, status: effectiveStatus(session, ctx.now), items }, firstExpiry };
}

export async function identifyCheckoutSession(
  em: EntityManager,
  merchantId: string,
  id: string,
  input: IdentifyInput,
  ctx: CheckoutContext,
): Promise<CheckoutView> {
  if (input.customer_id !== undefined && input.customer_email !== undefined) {
    throw errors.validation({ customer_email: ['send customer_id or customer_email, not both'] });
  }
  if (input.customer_id === undefined && input.customer_email === undefined) {
    throw errors.validation({ customer_email: ['is required when customer_id is absent'] });
  }
  const session = await getCheckoutSession(em, merchantId, id, true);
  assertOpen(session, ctx.now, 'be identified');
  const customer: BoundCustomer =
    input.customer_id !== undefined
      ? { ...(await requireCustomer(em, merchantId, input.customer_id)), by: 'id' }
      : {
          ...(await findOrCreateCustomerByEmail(em, merchantId, input.customer_email as string, input.customer_name)),
          name: input.customer_name ?? null,
          by: 'email',
        };
  attachCustomer(em, session, customer, input.customer_name);
  await em.flush();
  return viewOf(em, session, ctx.now);
}

/** Any state but completed may be abandoned (a paid checkout is history); abandoning again changes nothing. */
export async function abandonCheckoutSession(
  em: EntityManager,
  merchantId: string,
  id: string,
  now: Date,
): Promise<CheckoutView> {
  const session = await getCheckoutSession(em, merchantId, id, true);
  if (session.status === 'completed') throw invalidTransition('completed', 'be abandoned');
  if (session.status !== 'abandoned') {
    session.status = 'abandoned';
    recordServiceEvent(em, session, 'abandoned');
    await em.flush();
  }
  return viewOf(em, session, now);
}
