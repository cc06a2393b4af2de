/**
 * Product rules of Document 2: a product either stands alone (no family, no tier) or sits in a live family
 * of its merchant at a tier_order no other live product of that family holds; soft delete, restore,
 * archive and unarchive.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import {
  OfferPriceSchema,
  OfferSchema,
  ProductFamilySchema,
  ProductSchema,
  type Offer,
  type OfferPrice,
  type Product,
  type PRODUCT_STATUSES,
  type PRODUCT_TYPES,
} from '../../../db/entities';
import { newId } from '../../../domain/platform/ids';
import { containsPattern } from '../../lib/like';
import { errors } from '../../../domain/platform/errors';
import { flushOrConflict } from '../../http/db-errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { livePricesOf } from '../offer-prices/offer-prices.rules';
import type { CreateProductBody, UpdateProductBody } from './products.schema';

type CreateInput = Static<typeof CreateProductBody>;
type UpdateInput = Static<typeof UpdateProductBody>;

export interface ListProductsFilter extends PageRequest {
  type?: Array<(typeof PRODUCT_TYPES)[number]>;
  status?: Array<(typeof PRODUCT_STATUSES)[number]>;
  product_family_id?: string;
  name?: string;
  date_from?: string;
  date_to?: string;
}

/** Where a product sits: both null for a standalone product, both set inside a family. */
interface Placement {
  familyId: string | null;
  tierOrder: number | null;
}

const tierTaken = ({ familyId, tierOrder }: Placement, existingId?: string) =>
  errors.conflict('PRODUCT_TIER_ORDER_TAKEN', 'Another live product of this family already has this tier_order', {
    product_family_id: familyId,
    tier_order: tierOrder,
    ...(existingId ? { existing_product_id: existingId } : {}),
  });

/** The pairing rule the products_tier_with_family check constraint also enforces, as a 400 naming tier_order. */
function assertTierMatchesFamily({ familyId, tierOrder }: Placement): void {
  if (familyId !== null && tierOrder === null) {
    throw errors.invalidValue('tier_order', 'is required when the product belongs to a product family');
  }
  if (familyId === null && tierOrder !== null) {
    throw errors.invalidValue('tier_order', 'must be null when the product has no product_family_id');
  }
}

/** A family referenced in a body must be a live family of the same merchant (else 400, never its data). */
async function assertLiveFamily(em: EntityManager, merchantId: string, familyId: string): Promise<void> {
  const count = await em.count(ProductFamilySchema, { id: familyId, merchantId, deletedAt: null });
  if (count === 0) throw errors.invalidValue('product_family_id', 'must be a live product family of this merchant');
}

/** Called before the unit of work changes (queries auto-flush); the partial unique index backs it up. */
async function assertTierFree(em: EntityManager, placement: Placement, selfId?: string): Promise<void> {
  if (placement.familyId === null) return;
  const holder = await em.findOne(ProductSchema, {
    productFamilyId: placement.familyId,
    tierOrder: placement.tierOrder,
    deletedAt: null,
    ...(selfId ? { id: { $ne: selfId } } : {}),
  });
  if (holder) throw tierTaken(placement, holder.id);
}

const flushProduct = (em: EntityManager, placement: Placement) =>
  flushOrConflict(em, { products_live_family_tier_key: () => tierTaken(placement) });

export async function createProduct(em: EntityManager, merchantId: string, input: CreateInput): Promise<Product> {
  const placement: Placement = { familyId: input.product_family_id ?? null, tierOrder: input.tier_order ?? null };
  assertTierMatchesFamily(placement);
  if (placement.familyId !== null) await assertLiveFamily(em, merchantId, placement.familyId);
  await assertTierFree(em, placement);
  const product = em.create(ProductSchema, {
    id: newId('prd'),
    merchantId,
    productFamilyId: placement.familyId,
    name: input.name,
    description: input.description ?? null,
    type: input.type,
    tierOrder: placement.tierOrder,
    status: input.status,
    metadata: input.metadata ?? null,
    deletedAt: null,
  } as Product);
  await flushProduct(em, placement);
  return product;
}

/** A live product of the merchant; soft-deleted, unknown and other merchants' products are all 404. */
export async function getProduct(em: EntityManager, merchantId: string, id: string): Promise<Product> {
  const product = await em.findOne(ProductSchema, { id, merchantId, deletedAt: null });
  if (!product) throw errors.notFound('No such product');
  return product;
}

export async function listProducts(
  em: EntityManager,
  merchantId: string,
  filter: ListProductsFilter,
): Promise<{ items: Product[]; total: number }> {
  if (filter.date_from && filter.date_to && Date.parse(filter.date_from) > Date.parse(filter.date_to)) {
    throw errors.invalidValue('date_from', 'must not be after date_to');
  }
  const where: FilterQuery<Product> = { merchantId, deletedAt: null };
  if (filter.type) where.type = { $in: filter.type };
  if (filter.status) where.status = { $in: filter.status };
  if (filter.product_family_id) where.productFamilyId = filter.product_family_id;
  if (filter.name) where.name = { $ilike: containsPattern(filter.name) };
  if (filter.date_from || filter.date_to) {
    where.createdAt = {
      ...(filter.date_from ? { $gte: new Date(filter.date_from) } : {}),
      ...(filter.date_to ? { $lte: new Date(filter.date_to) } : {}),
    };
  }
  const [items, total] = await em.findAndCount(ProductSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  return { items, total };
}

/**
 * The placement a PATCH asks for. Leaving a family (product_family_id: null) clears tier_order unless one
 * is sent; moving to another family needs an explicit tier_order, since a rank only means something
 * inside its own family.
 */
function nextPlacement(product: Product, input: UpdateInput): Placement {
  const familyId = input.product_family_id === undefined ? product.productFamilyId : input.product_family_id;
  if (input.tier_order !== undefined) return { familyId, tierOrder: input.tier_order };
  if (familyId === null) return { familyId, tierOrder: null };
  return { familyId, tierOrder: familyId === product.productFamilyId ? product.tierOrder : null };
}

export async function updateProduct(
  em: EntityManager,
  merchantId: string,
  id: string,
  input: UpdateInput,
): Promise<Product> {
  const product = await getProduct(em, merchantId, id);
  const placement = nextPlacement(product, input);
  assertTierMatchesFamily(placement);
  const familyChanged = placement.familyId !== product.productFamilyId;
  // An unchanged family is not re-checked: its products stay editable after the family is soft-deleted.
  if (familyChanged && placement.familyId !== null) await assertLiveFamily(em, merchantId, placement.familyId);
  if (familyChanged || placement.tierOrder !== product.tierOrder) await assertTierFree(em, placement, product.id);
  product.productFamilyId = placement.familyId;
  product.tierOrder = placement.tierOrder;
  if (input.name !== undefined) product.name = input.name;
  if (input.type !== undefined) product.type = input.type;
  if (input.status !== undefined) product.status = input.status;
  if (input.description !== undefined) product.description = input.description;
  if (input.metadata !== undefined) product.metadata = input.metadata;
  await flushProduct(em, placement);
  return product;
}

/**
 * The product's offers and their prices that carry exactly this deleted_at: the ones an earlier product delete
 * cascaded to (earlier versions cascaded a product delete to them), which a restore still brings back.
 */
async function offersStampedWith(em: EntityManager, productId: string, deletedAt: Date) {
  const offers = await em.find(OfferSchema, { productId, deletedAt });
  const prices =
    offers.length === 0
      ? []
      : await em.find(OfferPriceSchema, { offerId: { $in: offers.map((offer) => offer.id) }, deletedAt });
  return { offers, prices };
}

/**
 * Soft delete of the product alone (Document 2: "live | DELETE /products/:id | soft-deleted (hidden from lists,
 * record kept)"; only an offer's delete cascades, to its prices): hidden from lists and lookups, record kept,
 * tier_order slot freed. Its offers and prices stay readable and keep renewing their subscribers; nothing new
 * can be bought from them, because a checkout refuses an offer whose product is deleted.
 */
export async function deleteProduct(em: EntityManager, merchantId: string, id: string): Promise<void> {
  const product = await getProduct(em, merchantId, id);
  product.deletedAt = new Date();
  await em.flush();
}

/** Back to live with its previous attributes, unless a live product took its tier meanwhile (409). */
export async function restoreProduct(em: EntityManager, merchantId: string, id: string): Promise<Product> {
  const product = await em.findOne(ProductSchema, { id, merchantId });
  if (!product) throw errors.notFound('No such product');
  if (product.deletedAt === null) {
    throw errors.validation(
      { id: ['the product is not deleted'] },
      'Only a deleted product can be restored',
      'INVALID_VALUE',
    );
  }
  const placement: Placement = { familyId: product.productFamilyId, tierOrder: product.tierOrder };
  await assertTierFree(em, placement, product.id);
  // Offers and prices that an earlier version's cascading product delete took with it come back; ones deleted on
  // their own stay deleted. No slot can clash: a deleted product accepts no new offers, a deleted offer no new prices.
  const { offers, prices } = await offersStampedWith(em, product.id, product.deletedAt);
  for (const record of [product, ...offers, ...prices]) record.deletedAt = null;
  await flushProduct(em, placement);
  return product;
}

/** archive and unarchive are idempotent: asking for the status the product already has returns it unchanged. */
export async function setProductStatus(
  em: EntityManager,
  merchantId: string,
  id: string,
  status: (typeof PRODUCT_STATUSES)[number],
): Promise<Product> {
  const product = await getProduct(em, merchantId, id);
  if (product.status !== status) {
    product.status = status;
    await em.flush();
  }
  return product;
}

/**
 * The live default offer of a live product with its live prices, or null when the product has none. An
 * archived default offer is still returned (its status says so): the default is a property of the product.
 */
export async function getDefaultOffer(
  em: EntityManager,
  merchantId: string,
  productId: string,
): Promise<{ offer: Offer; prices: OfferPrice[] } | null> {
  const product = await getProduct(em, merchantId, productId);
  const offer = await em.findOne(OfferSchema, { productId: product.id, merchantId, isDefault: true, deletedAt: null });
  return offer ? { offer, prices: await livePricesOf(em, offer.id) } : null;
}
