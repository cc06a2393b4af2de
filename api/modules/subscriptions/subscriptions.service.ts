/**
 * Reads of the subscription read model, and the checks an operation passes before it reaches the subscription's
 * workflow (which applies the state table itself, so a request racing a renewal still gets the right answer).
 */
import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import {
  OfferPriceSchema,
  OfferSchema,
  PaymentInstrumentSchema,
  ProductSchema,
  SubscriptionSchema,
  SubscriptionTransitionSchema,
  type Subscription,
} from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { refuseOperation, type SubscriptionOperation } from '../../../workflows/lib/subscription-rules';
import type { TargetOffer } from '../../../workflows/lib/subscription-moves';
import { assertChargeable } from '../payment-instruments/instrument-status.rules';
import { resolveEffectiveBehavior } from '../offer-transitions/offer-transitions.service';
import type { ListSubscriptionsQuery } from './subscriptions.schema';

export const notFound = () => errors.notFound('No such subscription', 'SUBSCRIPTION_NOT_FOUND');

export async function getSubscription(em: EntityManager, merchantId: string, id: string): Promise<Subscription> {
  const sub = await em.findOne(SubscriptionSchema, { id, merchantId });
  if (!sub) throw notFound();
  return sub;
}

export async function listSubscriptions(
  em: EntityManager,
  merchantId: string,
  query: Static<typeof ListSubscriptionsQuery>,
): Promise<{ items: Subscription[]; total: number }> {
  const where: FilterQuery<Subscription> = { merchantId };
  if (query.customer_id) where.customerId = query.customer_id;
  if (query.status) where.status = { $in: query.status };
  if (query.current_offer_id) where.currentOfferId = query.current_offer_id;
  if (query.product_family_id) where.productFamilyId = query.product_family_id;
  if (query.livemode !== undefined) where.livemode = query.livemode;
  const [items, total] = await em.findAndCount(SubscriptionSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: query.limit,
    offset: offsetOf(query),
  });
  return { items, total };
}

/** A page of the subscription's transitions, newest first (Document 1: page and limit apply to "All lists"). */
export async function listTransitions(em: EntityManager, sub: Subscription, page: PageRequest) {
  const [items, total] = await em.findAndCount(
    SubscriptionTransitionSchema,
    { subscriptionId: sub.id },
    { orderBy: { createdAt: 'desc', seq: 'desc' }, limit: page.limit, offset: offsetOf(page) },
  );
  return { items, total };
}

/** The stored state already forbids the move: 422 without a round trip to the workflow. */
export function assertAllowed(sub: Subscription, operation: SubscriptionOperation): void {
  const refusal = refuseOperation(sub, operation);
  if (refusal) throw errors.businessRule(refusal.code, refusal.message, { status: sub.status });
}

/** The target of a change-offer: a live offer of the same family, priced in the subscription's currency. */
export async function targetOffer(em: EntityManager, sub: Subscription, toOfferId: string): Promise<TargetOffer> {
  if (toOfferId === sub.currentOfferId)
    throw errors.businessRule('OFFER_UNCHANGED', 'The subscription is already on this offer');
  const offer = await em.findOne(OfferSchema, { id: toOfferId, merchantId: sub.merchantId, deletedAt: null });
  if (!offer) throw errors.invalidValue('to_offer_id', 'no such offer for this merchant');
  const product = await em.findOneOrFail(ProductSchema, { id: offer.productId });
  const sameFamily = sub.productFamilyId
    ? product.productFamilyId === sub.productFamilyId
    : product.id === sub.productId;
  if (!sameFamily) {
    throw errors.businessRule(
      'OFFER_NOT_IN_FAMILY',
      "The offer is not in the subscription's product family; moving across families is a cancel plus a new subscription",
      { product_family_id: sub.productFamilyId, to_offer_id: toOfferId },
    );
  }
  if (offer.status !== 'active' || offer.billingCycle === 'none')
    throw errors.businessRule('OFFER_UNAVAILABLE', 'The offer is archived or not recurring', {
      to_offer_id: toOfferId,
    });
  const price = await em.findOne(OfferPriceSchema, { offerId: offer.id, currency: sub.currency, deletedAt: null });
  if (!price) {
    throw errors.businessRule('OFFER_PRICE_UNAVAILABLE', `The offer has no price in ${sub.currency}`, {
      to_offer_id: toOfferId,
      currency: sub.currency,
    });
  }
  const behavior = sub.productFamilyId
    ? (await resolveEffectiveBehavior(em, sub.merchantId, sub.currentOfferId, offer.id)).behavior
    : 'next_renew';
  return {
    offerId: offer.id,
    productId: product.id,
    productFamilyId: product.productFamilyId,
    amount: price.amount,
    currency: sub.currency,
    billingCycle: offer.billingCycle,
    customDays: offer.customBillingDays,
    cycleLimit: offer.cycleLimit,
    behavior,
  };
}

/** Renewals may only bill the customer's own active instrument. */
export async function assertCustomerInstrument(em: EntityManager, sub: Subscription, instrumentId: string) {
  const instrument = await em.findOne(PaymentInstrumentSchema, { id: instrumentId, merchantId: sub.merchantId });
  if (!instrument || instrument.customerId !== sub.customerId)
    throw errors.invalidValue('payment_instrument_id', "is not one of the subscription's customer's instruments");
  assertChargeable(instrument, new Date());
}

/** Live subscriptions a restored connector (all of the merchant's) or offer (its subscribers) may unblock. */
export async function liveSubscriptionIds(em: EntityManager, merchantId: string, offerId?: string): Promise<string[]> {
  const rows = await em.find(
    SubscriptionSchema,
    { merchantId, status: { $nin: ['cancelled', 'expired'] }, ...(offerId ? { currentOfferId: offerId } : {}) },
    { fields: ['id'] },
  );
  return rows.map((row) => row.id);
}
