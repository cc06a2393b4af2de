/**
 * Price rules shared by the offers module (prices created with, deleted with and restored with their offer)
 * and the offer-prices module. Deliberately independent of the offers service, so imports go one way.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OfferPriceSchema, type OfferPrice } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';

/** Document 2: prices are listed default first, then by currency ascending. */
export const PRICE_ORDER = { isDefault: 'desc', currency: 'asc', id: 'asc' } as const;

export function sortPrices(prices: OfferPrice[]): OfferPrice[] {
  return [...prices].sort(
    (a, b) =>
      Number(b.isDefault) - Number(a.isDefault) || a.currency.localeCompare(b.currency) || a.id.localeCompare(b.id),
  );
}

export async function livePricesOf(em: EntityManager, offerId: string): Promise<OfferPrice[]> {
  return em.find(OfferPriceSchema, { offerId, deletedAt: null }, { orderBy: PRICE_ORDER });
}

export const priceCurrencyExists = (offerId: string, currency?: string, existingId?: string) =>
  errors.conflict('OFFER_PRICE_CURRENCY_EXISTS', 'The offer already has a live price in this currency', {
    offer_id: offerId,
    ...(currency ? { currency } : {}),
    ...(existingId ? { existing_offer_price_id: existingId } : {}),
  });

export const priceDefaultExists = (offerId: string, existingId?: string) =>
  errors.conflict('OFFER_PRICE_DEFAULT_EXISTS', 'The offer already has a live default price; unset it first', {
    offer_id: offerId,
    ...(existingId ? { existing_offer_price_id: existingId } : {}),
  });

/** The partial unique indexes behind the two rules, for flushOrConflict (the race the checks cannot see). */
export const priceConflicts = (offerId: string, currency?: string) => ({
  offer_prices_live_currency_key: () => priceCurrencyExists(offerId, currency),
  offer_prices_live_default_key: () => priceDefaultExists(offerId),
});

/**
 * Refuses a currency or default slot held by another live price of the offer. Call before changing anything
 * in the unit of work: queries auto-flush pending changes, outside flushOrConflict's mapping.
 */
export async function assertPriceSlotsFree(
  em: EntityManager,
  offerId: string,
  wanted: { currency: string; isDefault: boolean; selfId?: string },
): Promise<void> {
  const others = { offerId, deletedAt: null, ...(wanted.selfId ? { id: { $ne: wanted.selfId } } : {}) };
  const sameCurrency = await em.findOne(OfferPriceSchema, { ...others, currency: wanted.currency });
  if (sameCurrency) throw priceCurrencyExists(offerId, wanted.currency, sameCurrency.id);
  if (wanted.isDefault) {
    const otherDefault = await em.findOne(OfferPriceSchema, { ...others, isDefault: true });
    if (otherDefault) throw priceDefaultExists(offerId, otherDefault.id);
  }
}
