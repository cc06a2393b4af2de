/**
 * Offer rules of Document 2: billing terms that agree with each other, a slug unique per product and at most
 * one default offer per product among live offers, prices created with the offer, a renewal offer from the
 * same family, and a soft delete that cascades to the prices and is undone by restore.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import {
  OfferPriceSchema,
  OfferSchema,
  ProductSchema,
  type BillingCycle,
  type Offer,
  type OfferPrice,
  type OFFER_STATUSES,
  type Product,
} from '../../../db/entities';
import { newId } from '../../../domain/platform/ids';
import { containsPattern } from '../../lib/like';
import { errors, type FieldErrors } from '../../../domain/platform/errors';
import { flushOrConflict } from '../../http/db-errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { livePricesOf, priceConflicts, sortPrices } from '../offer-prices/offer-prices.rules';
import type { CreateOfferBody, UpdateOfferBody } from './offers.schema';

type CreateInput = Static<typeof CreateOfferBody>;
type UpdateInput = Static<typeof UpdateOfferBody>;

export interface ListOffersFilter extends PageRequest {
  product_id?: string;
  status?: Array<(typeof OFFER_STATUSES)[number]>;
  billing_cycle?: BillingCycle[];
  is_default?: boolean;
  name?: string;
}

export interface OfferWithPrices {
  offer: Offer;
  /** Live prices, default first then by currency. */
  prices: OfferPrice[];
}

const slugTaken = (productId: string, slug: string, existingId?: string) =>
  errors.conflict('OFFER_SLUG_TAKEN', 'A live offer of this product already uses this slug', {
    product_id: productId,
    slug,
    ...(existingId ? { existing_offer_id: existingId } : {}),
  });

const defaultTaken = (productId: string, existingId?: string) =>
  errors.conflict('OFFER_DEFAULT_EXISTS', 'The product already has a live default offer; unset it first', {
    product_id: productId,
    ...(existingId ? { existing_offer_id: existingId } : {}),
  });

const offerConflicts = (offer: Offer) => ({
  offers_live_slug_key: () => slugTaken(offer.productId, offer.slug),
  offers_live_default_key: () => defaultTaken(offer.productId),
});

/** Collects field problems so one 400 names every field that is wrong in context. */
class Problems {
  readonly details: FieldErrors = {};
  add(field: string, message: string): void {
    (this.details[field] ??= []).push(message);
  }
  throwIfAny(message = 'The offer is not valid'): void {
    if (Object.keys(this.details).length > 0) throw errors.validation(this.details, message, 'INVALID_VALUE');
  }
}

interface Terms {
  billingCycle: BillingCycle;
  customBillingDays: number | null;
  freeTrial: boolean;
  trialDays: number | null;
}

type TermsInput = Partial<Pick<UpdateInput, 'billing_cycle' | 'custom_billing_days' | 'free_trial' | 'trial_days'>>;

/**
 * The next billing terms from the current ones and the request: custom_billing_days exists exactly when the
 * cycle is custom, trial_days exactly when free_trial is on. Leaving custom or the trial clears the dependent
 * field; sending it without its switch is refused (it would silently do nothing).
 */
function resolveTerms(current: Terms, input: TermsInput, problems: Problems): Terms {
  const billingCycle = input.billing_cycle ?? current.billingCycle;
  let customBillingDays =
    input.custom_billing_days === undefined ? current.customBillingDays : input.custom_billing_days;
  if (billingCycle === 'custom') {
    if (customBillingDays === null) problems.add('custom_billing_days', 'is required when billing_cycle is custom');
  } else if (input.custom_billing_days !== undefined && input.custom_billing_days !== null) {
    problems.add('custom_billing_days', 'is only allowed when billing_cycle is custom');
  } else {
    customBillingDays = null;
  }
  const freeTrial = input.free_trial ?? current.freeTrial;
  let trialDays = input.trial_days === undefined ? current.trialDays : input.trial_days;
  if (freeTrial) {
    if (trialDays === null) problems.add('trial_days', 'is required when free_trial is true');
  } else if (input.trial_days !== undefined && input.trial_days !== null) {
    problems.add('trial_days', 'is only allowed when free_trial is true');
  } else {
    trialDays = null;
  }
  return { billingCycle, customBillingDays, freeTrial, trialDays };
}

/** Currencies unique and at most one default within a create request's prices. */
function checkPriceEntries(prices: CreateInput['prices'], problems: Problems): void {
  const seen = new Set<string>();
  prices.forEach((price, index) => {
    if (seen.has(price.currency))
      problems.add(`prices.${index}.currency`, 'appears more than once; each currency at most once per offer');
    seen.add(price.currency);
  });
  const defaults = prices.map((price, index) => (price.is_default ? index : -1)).filter((index) => index >= 0);
  for (const index of defaults.slice(1))
    problems.add(`prices.${index}.is_default`, 'only one price may be the default');
}

/**
 * renewal_offer_id must name a live offer of the merchant in the same product family; for a product without
 * a family, "the same family" is the product itself, so another offer of that product is accepted.
 */
async function checkRenewalOffer(
  em: EntityManager,
  merchantId: string,
  product: Product,
  renewalOfferId: string,
  problems: Problems,
): Promise<void> {
  const target = await em.findOne(OfferSchema, { id: renewalOfferId, merchantId, deletedAt: null });
  if (!target) return problems.add('renewal_offer_id', 'must be a live offer of this merchant');
  if (target.productId === product.id) return;
  const targetProduct = await em.findOne(ProductSchema, { id: target.productId, merchantId });
  if (product.productFamilyId === null || targetProduct?.productFamilyId !== product.productFamilyId) {
    problems.add(
      'renewal_offer_id',
      product.productFamilyId === null
        ? 'must be an offer of the same product (the product has no family)'
        : 'must be an offer of the same product family',
    );
  }
}

/** Slug and default slot among the product's other live offers; called before the unit of work changes. */
async function assertOfferSlotsFree(
  em: EntityManager,
  offer: { productId: string; slug: string; isDefault: boolean; selfId?: string },
): Promise<void> {
  const others: FilterQuery<Offer> = {
    productId: offer.productId,
    deletedAt: null,
    ...(offer.selfId ? { id: { $ne: offer.selfId } } : {}),
  };
  const sameSlug = await em.findOne(OfferSchema, { ...others, slug: offer.slug });
  if (sameSlug) throw slugTaken(offer.productId, offer.slug, sameSlug.id);
  if (offer.isDefault) {
    const otherDefault = await em.findOne(OfferSchema, { ...others, isDefault: true });
    if (otherDefault) throw defaultTaken(offer.productId, otherDefault.id);
  }
}

export async function createOffer(em: EntityManager, merchantId: string, input: CreateInput): Promise<OfferWithPrices> {
  const problems = new Problems();
  const product = await em.findOne(ProductSchema, { id: input.product_id, merchantId, deletedAt: null });
  if (!product) problems.add('product_id', 'must be a live product of this merchant');
  const terms = resolveTerms(
    { billingCycle: input.billing_cycle, customBillingDays: null, freeTrial: false, trialDays: null },
    input,
    problems,
  );
  checkPriceEntries(input.prices, problems);
  if (product && input.renewal_offer_id)
    await checkRenewalOffer(em, merchantId, product, input.renewal_offer_id, problems);
  problems.throwIfAny();
  const isDefault = input.is_default ?? false;
  await assertOfferSlotsFree(em, { productId: input.product_id, slug: input.slug, isDefault });

  const offer = em.create(OfferSchema, {
    id: newId('ofr'),
    merchantId,
    productId: input.product_id,
    name: input.name,
    slug: input.slug,
    description: input.description ?? null,
    ...terms,
    cycleLimit: input.cycle_limit ?? null,
    setupCharge: input.setup_charge ?? false,
    renewAfterCycleLimit: input.renew_after_cycle_limit ?? false,
    renewalOfferId: input.renewal_offer_id ?? null,
    isDefault,
    status: input.status,
    deletedAt: null,
  } as Offer);
  // The offer row first: prices reference it (plain columns, no ORM relation to order the inserts).
  await flushOrConflict(em, offerConflicts(offer));

  // With no price flagged, the first one is the default, so every new offer has a default currency.
  const defaultIndex = Math.max(
    0,
    input.prices.findIndex((price) => price.is_default),
  );
  const prices = input.prices.map((price, index) =>
    em.create(OfferPriceSchema, {
      id: newId('opr'),
      merchantId,
      offerId: offer.id,
      currency: price.currency,
      amount: price.amount,
      firstChargeAmount: price.first_charge_amount ?? null,
      isDefault: index === defaultIndex,
      deletedAt: null,
    } as OfferPrice),
  );
  await flushOrConflict(em, priceConflicts(offer.id));
  return { offer, prices: sortPrices(prices) };
}

/** A live offer of the merchant; soft-deleted, unknown and other merchants' offers are all 404. */
export async function getOffer(em: EntityManager, merchantId: string, id: string): Promise<Offer> {
  const offer = await em.findOne(OfferSchema, { id, merchantId, deletedAt: null });
  if (!offer) throw errors.notFound('No such offer');
  return offer;
}

export async function getOfferWithPrices(em: EntityManager, merchantId: string, id: string): Promise<OfferWithPrices> {
  const offer = await getOffer(em, merchantId, id);
  return { offer, prices: await livePricesOf(em, offer.id) };
}

export async function listOffers(
  em: EntityManager,
  merchantId: string,
  filter: ListOffersFilter,
): Promise<{ items: Offer[]; total: number }> {
  const where: FilterQuery<Offer> = { merchantId, deletedAt: null };
  if (filter.product_id) where.productId = filter.product_id;
  if (filter.status) where.status = { $in: filter.status };
  if (filter.billing_cycle) where.billingCycle = { $in: filter.billing_cycle };
  if (filter.is_default !== undefined) where.isDefault = filter.is_default;
  if (filter.name) where.name = { $ilike: containsPattern(filter.name) };
  const [items, total] = await em.findAndCount(OfferSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  return { items, total };
}

/** Offer-level fields only; every check runs before the entity changes (queries auto-flush). */
export async function updateOffer(
  em: EntityManager,
  merchantId: string,
  id: string,
  input: UpdateInput,
): Promise<OfferWithPrices> {
  const offer = await getOffer(em, merchantId, id);
  const problems = new Problems();
  const terms = resolveTerms(offer, input, problems);
  if (input.renewal_offer_id) {
    const product = await em.findOneOrFail(ProductSchema, { id: offer.productId });
    await checkRenewalOffer(em, merchantId, product, input.renewal_offer_id, problems);
  }
  problems.throwIfAny();
  const slug = input.slug ?? offer.slug;
  const isDefault = input.is_default ?? offer.isDefault;
  await assertOfferSlotsFree(em, { productId: offer.productId, slug, isDefault, selfId: offer.id });
  const prices = await livePricesOf(em, offer.id);

  Object.assign(offer, terms, { slug, isDefault });
  if (input.name !== undefined) offer.name = input.name;
  if (input.description !== undefined) offer.description = input.description;
  if (input.cycle_limit !== undefined) offer.cycleLimit = input.cycle_limit;
  if (input.setup_charge !== undefined) offer.setupCharge = input.setup_charge;
  if (input.renew_after_cycle_limit !== undefined) offer.renewAfterCycleLimit = input.renew_after_cycle_limit;
  if (input.renewal_offer_id !== undefined) offer.renewalOfferId = input.renewal_offer_id;
  if (input.status !== undefined) offer.status = input.status;
  await flushOrConflict(em, offerConflicts(offer));
  return { offer, prices };
}

/**
 * Soft delete of the offer and its live prices, all stamped with the same deleted_at: that shared instant
 * is how restore tells the cascaded prices from ones deleted on their own before.
 */
export async function deleteOffer(em: EntityManager, merchantId: string, id: string): Promise<void> {
  const offer = await getOffer(em, merchantId, id);
  const prices = await livePricesOf(em, offer.id);
  const deletedAt = new Date();
  offer.deletedAt = deletedAt;
  for (const price of prices) price.deletedAt = deletedAt;
  await em.flush();
}

/**
 * Brings back the offer and the prices its delete took with it. Refused with 400 when the offer is live or
 * its product is gone, and with 409 when a live offer of the product took its slug or (for a default offer)
 * the default slot. No price can clash: a deleted offer accepts no new or restored prices.
 */
export async function restoreOffer(em: EntityManager, merchantId: string, id: string): Promise<OfferWithPrices> {
  const offer = await em.findOne(OfferSchema, { id, merchantId });
  if (!offer) throw errors.notFound('No such offer');
  if (offer.deletedAt === null) {
    throw errors.validation(
      { id: ['the offer is not deleted'] },
      'Only a deleted offer can be restored',
      'INVALID_VALUE',
    );
  }
  const productLive = await em.count(ProductSchema, { id: offer.productId, deletedAt: null });
  if (productLive === 0) {
    throw errors.validation(
      { product_id: ["the offer's product is deleted; restore the product first"] },
      'The offer cannot be restored',
      'INVALID_VALUE',
    );
  }
  await assertOfferSlotsFree(em, {
    productId: offer.productId,
    slug: offer.slug,
    isDefault: offer.isDefault,
    selfId: offer.id,
  });
  const prices = await em.find(OfferPriceSchema, { offerId: offer.id, deletedAt: offer.deletedAt });
  offer.deletedAt = null;
  for (const price of prices) price.deletedAt = null;
  await flushOrConflict(em, { ...offerConflicts(offer), ...priceConflicts(offer.id) });
  return { offer, prices: sortPrices(prices) };
}

/** The offer's live default price, or null when it has none (its default price was deleted or unset). */
export async function getDefaultPrice(em: EntityManager, merchantId: string, id: string): Promise<OfferPrice | null> {
  const offer = await getOffer(em, merchantId, id);
  return em.findOne(OfferPriceSchema, { offerId: offer.id, isDefault: true, deletedAt: null });
}
