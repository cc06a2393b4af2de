/**
 * Offer price rules of Document 2: each currency at most once and at most one default per offer among live
 * prices (409 on a collision, never a silent demotion), soft delete that frees both slots, and restore that
 * fails when a live price took them meanwhile. Prices live under a live offer of the caller's merchant.
 * Editing a price touches only this row: checkout items and orders hold their own snapshots.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { OfferPriceSchema, OfferSchema, type OfferPrice } from '../../../db/entities';
import { newId } from '../../../domain/platform/ids';
import { errors } from '../../../domain/platform/errors';
import { flushOrConflict } from '../../http/db-errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { getOffer } from '../offers/offers.service';
import { assertPriceSlotsFree, PRICE_ORDER, priceConflicts } from './offer-prices.rules';
import type { CreateOfferPriceBody, UpdateOfferPriceBody } from './offer-prices.schema';

type CreateInput = Static<typeof CreateOfferPriceBody>;
type UpdateInput = Static<typeof UpdateOfferPriceBody>;

export interface ListPricesFilter extends PageRequest {
  currency?: string;
  is_default?: boolean;
}

export async function createOfferPrice(
  em: EntityManager,
  merchantId: string,
  offerId: string,
  input: CreateInput,
): Promise<OfferPrice> {
  const offer = await getOffer(em, merchantId, offerId);
  const isDefault = input.is_default ?? false;
  await assertPriceSlotsFree(em, offer.id, { currency: input.currency, isDefault });
  const price = em.create(OfferPriceSchema, {
    id: newId('opr'),
    merchantId,
    offerId: offer.id,
    currency: input.currency,
    amount: input.amount,
    firstChargeAmount: input.first_charge_amount ?? null,
    isDefault,
    deletedAt: null,
  } as OfferPrice);
  await flushOrConflict(em, priceConflicts(offer.id, input.currency));
  return price;
}

export async function listOfferPrices(
  em: EntityManager,
  merchantId: string,
  offerId: string,
  filter: ListPricesFilter,
): Promise<{ items: OfferPrice[]; total: number }> {
  const offer = await getOffer(em, merchantId, offerId);
  const where: FilterQuery<OfferPrice> = { offerId: offer.id, deletedAt: null };
  if (filter.currency) where.currency = filter.currency;
  if (filter.is_default !== undefined) where.isDefault = filter.is_default;
  const [items, total] = await em.findAndCount(OfferPriceSchema, where, {
    orderBy: PRICE_ORDER,
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  return { items, total };
}

/** A live price of a live offer of the merchant; anything else is 404. */
export async function getOfferPrice(em: EntityManager, merchantId: string, id: string): Promise<OfferPrice> {
  const price = await em.findOne(OfferPriceSchema, { id, merchantId, deletedAt: null });
  if (!price) throw errors.notFound('No such offer price');
  const offerLive = await em.count(OfferSchema, { id: price.offerId, merchantId, deletedAt: null });
  if (offerLive === 0) throw errors.notFound('No such offer price');
  return price;
}

export async function updateOfferPrice(
  em: EntityManager,
  merchantId: string,
  id: string,
  input: UpdateInput,
): Promise<OfferPrice> {
  const price = await getOfferPrice(em, merchantId, id);
  const currency = input.currency ?? price.currency;
  const isDefault = input.is_default ?? price.isDefault;
  await assertPriceSlotsFree(em, price.offerId, { currency, isDefault, selfId: price.id });
  price.currency = currency;
  price.isDefault = isDefault;
  if (input.amount !== undefined) price.amount = input.amount;
  if (input.first_charge_amount !== undefined) price.firstChargeAmount = input.first_charge_amount;
  await flushOrConflict(em, priceConflicts(price.offerId, currency));
  return price;
}

export async function deleteOfferPrice(em: EntityManager, merchantId: string, id: string): Promise<void> {
  const price = await getOfferPrice(em, merchantId, id);
  price.deletedAt = new Date();
  await em.flush();
}

/**
 * 400 when the price is live or its offer is deleted (restore the offer, which brings back the prices its
 * delete took); 409 when a live price now holds its currency, or it was the default and the offer has a
 * default again.
 */
export async function restoreOfferPrice(em: EntityManager, merchantId: string, id: string): Promise<OfferPrice> {
  const price = await em.findOne(OfferPriceSchema, { id, merchantId });
  if (!price) throw errors.notFound('No such offer price');
  if (price.deletedAt === null) {
    throw errors.validation(
      { id: ['the offer price is not deleted'] },
      'Only a deleted offer price can be restored',
      'INVALID_VALUE',
    );
  }
  const offerLive = await em.count(OfferSchema, { id: price.offerId, merchantId, deletedAt: null });
  if (offerLive === 0) {
    throw errors.validation(
      { offer_id: ['the offer is deleted; restore the offer first'] },
      'The offer price cannot be restored',
      'INVALID_VALUE',
    );
  }
  await assertPriceSlotsFree(em, price.offerId, {
    currency: price.currency,
    isDefault: price.isDefault,
    selfId: price.id,
  });
  price.deletedAt = null;
  await flushOrConflict(em, priceConflicts(price.offerId, price.currency));
  return price;
}
