/**
 * Line-item management before payment (the spec leaves these endpoints to us): add an item priced now in the
 * session's currency, change its quantity or installments (the price snapshot stays), remove it (never the last).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import { CheckoutItemSchema, type CheckoutItem, type CheckoutSession } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { snapshotItems } from './checkout-pricing.service';
import { type AddItemBody, MAX_ITEMS_PER_SESSION, type UpdateItemBody } from './checkout-sessions.schema';
import { getCheckoutSession } from './checkout-sessions.service';
import { assertOpen } from './checkout-status.rules';

type AddInput = Static<typeof AddItemBody>;
type UpdateInput = Static<typeof UpdateItemBody>;

/** The session, 404 when it is not the merchant's, 422 when it no longer takes item changes. */
async function openSession(
  em: EntityManager,
  merchantId: string,
  sessionId: string,
  now: Date,
): Promise<CheckoutSession> {
  const session = await getCheckoutSession(em, merchantId, sessionId, true);
  assertOpen(session, now, 'change its items');
  // A setup session saves a card and sells nothing: it never holds items.
  if (session.mode === 'setup')
    throw errors.businessRule('CHECKOUT_SETUP_MODE', 'A checkout session in setup mode has no items', {
      mode: 'setup',
    });
  return session;
}

/** An item change is a change of the checkout: its updated_at moves too. */
function touch(session: CheckoutSession, now: Date): void {
  session.updatedAt = now;
}

async function getItem(em: EntityManager, session: CheckoutSession, itemId: string): Promise<CheckoutItem> {
  const item = await em.findOne(CheckoutItemSchema, { id: itemId, checkoutSessionId: session.id });
  if (!item) throw errors.notFound('No such checkout item');
  return item;
}

export async function addCheckoutItem(
  em: EntityManager,
  merchantId: string,
  sessionId: string,
  input: AddInput,
  now: Date,
): Promise<CheckoutItem> {
  const session = await openSession(em, merchantId, sessionId, now);
  const count = await em.count(CheckoutItemSchema, { checkoutSessionId: session.id });
  if (count >= MAX_ITEMS_PER_SESSION) {
    throw errors.businessRule(
      'CHECKOUT_ITEM_LIMIT_REACHED',
      `A checkout session holds at most ${MAX_ITEMS_PER_SESSION} items`,
    );
  }
  const [item] = await snapshotItems(em, merchantId, session.id, session.selectedCurrency as string, [
    {
      offerId: input.offer_id,
      quantity: input.quantity ?? 1,
      installments: input.installments ?? 1,
      field: 'offer_id',
    },
  ]);
  touch(session, now);
  await em.flush();
  return item;
}

export async function updateCheckoutItem(
  em: EntityManager,
  merchantId: string,
  sessionId: string,
  itemId: string,
  input: UpdateInput,
  now: Date,
): Promise<CheckoutItem> {
  const session = await openSession(em, merchantId, sessionId, now);
  const item = await getItem(em, session, itemId);
  if (input.quantity !== undefined) item.quantity = input.quantity;
  if (input.installments !== undefined) item.installments = input.installments;
  touch(session, now);
  await em.flush();
  return item;
}

export async function removeCheckoutItem(
  em: EntityManager,
  merchantId: string,
  sessionId: string,
  itemId: string,
  now: Date,
): Promise<void> {
  const session = await openSession(em, merchantId, sessionId, now);
  const item = await getItem(em, session, itemId);
  const count = await em.count(CheckoutItemSchema, { checkoutSessionId: session.id });
  if (count <= 1) {
    throw errors.businessRule(
      'CHECKOUT_ITEM_REQUIRED',
      'A checkout session keeps at least one item; add another before removing this one',
      {
        item_id: item.id,
      },
    );
  }
  em.remove(item);
  touch(session, now);
  await em.flush();
}
