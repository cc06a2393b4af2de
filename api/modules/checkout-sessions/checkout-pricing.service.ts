/**
 * Reading the catalog for a checkout: which offers may be bought, in which currency, and the price snapshot
 * each line item keeps (so later catalog edits never change a checkout in flight).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import {
  CheckoutItemSchema,
  OfferPriceSchema,
  OfferSchema,
  ProductSchema,
  type CheckoutItem,
  type Offer,
  type OfferPrice,
} from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { newId } from '../../../domain/platform/ids';
import type { CreateCheckoutSessionBody } from './checkout-sessions.schema';

/** A live, active offer of the merchant whose product is live and active too; otherwise 400 naming `field`. */
export async function requireSellableOffer(
  em: EntityManager,
  merchantId: string,
  offerId: string,
  field: string,
): Promise<Offer> {
  const offer = await em.findOne(OfferSchema, { id: offerId, merchantId, deletedAt: null });
  if (!offer) throw errors.invalidValue(field, 'must name a live offer of this merchant');
  if (offer.status !== 'active') throw errors.invalidValue(field, 'the offer is archived and cannot be bought');
  const product = await em.findOne(ProductSchema, { id: offer.productId, merchantId, deletedAt: null });
  if (!product || product.status !== 'active')
    throw errors.invalidValue(field, "the offer's product is archived or deleted");
  return offer;
}

export async function livePrice(em: EntityManager, offerId: string, currency: string): Promise<OfferPrice | null> {
  return em.findOne(OfferPriceSchema, { offerId, currency, deletedAt: null });
}

/** The currency of the offer's default price: what selected_currency means when omitted. */
export async function defaultCurrency(em: EntityManager, offer: Offer): Promise<string> {
  const price = await em.findOne(OfferPriceSchema, { offerId: offer.id, isDefault: true, deletedAt: null });
  if (!price) throw errors.invalidValue('selected_currency', 'is required: the offer has no default price');
  return price.currency;
}

/** What a new checkout sells: its offer, currency and items to snapshot (setup mode: no offer, no items). */
export interface Sale {
  offerId: string | null;
  currency: string;
  requests: ItemRequest[];
}

type SaleInput = Pick<Static<typeof CreateCheckoutSessionBody>, 'mode' | 'offer_id' | 'selected_currency' | 'items'>;

/**
 * Setup mode sells nothing: offer_id and items are refused (400 naming them) and selected_currency, the currency of
 * the zero-amount check, is required. Payment mode needs offer_id, and a live price in the currency.
 */
export async function checkoutSale(em: EntityManager, merchantId: string, input: SaleInput): Promise<Sale> {
  if (input.mode === 'setup') {
    const sold = (['offer_id', 'items'] as const).filter((field) => input[field] !== undefined);
    if (sold.length > 0)
      throw errors.validation(Object.fromEntries(sold.map((field) => [field, ['is not allowed in setup mode']])));
    if (input.selected_currency === undefined)
      throw errors.validation({ selected_currency: ['is required in setup mode: the currency of the card check'] });
    return { offerId: null, currency: input.selected_currency, requests: [] };
  }
  if (input.offer_id === undefined) throw errors.validation({ offer_id: ['is required'] });
  const offer = await requireSellableOffer(em, merchantId, input.offer_id, 'offer_id');
  const currency = input.selected_currency ?? (await defaultCurrency(em, offer));
  if (!(await livePrice(em, offer.id, currency))) {
    throw errors.invalidValue('selected_currency', `the offer has no live price in ${currency}`);
  }
  const requests = (input.items ?? [{ offer_id: offer.id }]).map((item, index) => ({
    offerId: item.offer_id,
    quantity: item.quantity ?? 1,
    installments: item.installments ?? 1,
    field: input.items ? `items.${index}.offer_id` : 'offer_id',
  }));
  return { offerId: offer.id, currency, requests };
}

export interface ItemRequest {
  offerId: string;
  quantity: number;
  installments: number;
  /** The request field an error about this item names (offer_id, items.2.offer_id …). */
  field: string;
}

/** The item's offer must be sellable and priced in `currency`. */
export async function priceItem(
  em: EntityManager,
  merchantId: string,
  currency: string,
  request: ItemRequest,
): Promise<OfferPrice> {
  await requireSellableOffer(em, merchantId, request.offerId, request.field);
  const price = await livePrice(em, request.offerId, currency);
  if (!price) throw errors.invalidValue(request.field, `the offer has no live price in ${currency}`);
  return price;
}

/** Copies the price into the item: the item keeps these numbers whatever happens to the price later. */
export function applySnapshot(item: CheckoutItem, price: OfferPrice): void {
  item.offerPriceId = price.id;
  item.currency = price.currency;
  item.amount = price.amount;
  item.firstChargeAmount = price.firstChargeAmount;
}

/** New (unflushed) items for `sessionId`, each priced in `currency` now. */
export async function snapshotItems(
  em: EntityManager,
  merchantId: string,
  sessionId: string,
  currency: string,
  requests: ItemRequest[],
): Promise<CheckoutItem[]> {
  const items: CheckoutItem[] = [];
  for (const request of requests) {
    const price = await priceItem(em, merchantId, currency, request);
    const item = em.create(CheckoutItemSchema, {
      id: newId('cki'),
      merchantId,
      checkoutSessionId: sessionId,
      offerId: request.offerId,
      quantity: request.quantity,
      installments: request.installments,
    } as CheckoutItem);
    applySnapshot(item, price);
    items.push(item);
  }
  return items;
}

/** Re-prices existing items in `currency` from the current catalog (a currency change re-snapshots). */
export async function repriceItems(
  em: EntityManager,
  merchantId: string,
  currency: string,
  items: CheckoutItem[],
): Promise<void> {
  const prices: OfferPrice[] = [];
  // Price everything first, so one unpriced item rejects the change before any item is touched.
  for (const item of items) {
    prices.push(await priceItem(em, merchantId, currency, { ...item, field: 'selected_currency' }));
  }
  items.forEach((item, index) => applySnapshot(item, prices[index]));
}
