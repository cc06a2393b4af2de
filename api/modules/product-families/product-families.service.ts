/**
 * Product family rules of Document 2: slug and custom_plan_id unique per merchant among live families,
 * soft delete that frees both, and restore that fails when a live family took either meanwhile.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import { ProductFamilySchema, type ChangeChargeBehavior, type ProductFamily } from '../../../db/entities';
import { newId } from '../../../domain/platform/ids';
import { containsPattern } from '../../lib/like';
import { errors } from '../../../domain/platform/errors';
import { flushOrConflict } from '../../http/db-errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import type { CreateProductFamilyBody, UpdateProductFamilyBody } from './product-families.schema';

type CreateInput = Static<typeof CreateProductFamilyBody>;
type UpdateInput = Static<typeof UpdateProductFamilyBody>;

export interface ListFamiliesFilter extends PageRequest {
  name?: string;
  slug?: string;
  change_charge_behavior?: ChangeChargeBehavior[];
}

const slugTaken = (slug: string, existingId?: string) =>
  errors.conflict('PRODUCT_FAMILY_SLUG_TAKEN', 'A live product family of this merchant already uses this slug', {
    slug,
    ...(existingId ? { existing_product_family_id: existingId } : {}),
  });

/**
 * Document 2 answers a taken custom_plan_id with the slug's code ("409 PRODUCT_FAMILY_SLUG_TAKEN … on duplicate
 * slug or custom_plan_id"); details names the clashing identifier (slug or custom_plan_id) (docs/api-decisions.md).
 */
const customPlanIdTaken = (customPlanId: string, existingId?: string) =>
  errors.conflict(
    'PRODUCT_FAMILY_SLUG_TAKEN',
    'A live product family of this merchant already uses this custom_plan_id',
    {
      custom_plan_id: customPlanId,
      ...(existingId ? { existing_product_family_id: existingId } : {}),
    },
  );

interface Identifiers {
  merchantId: string;
  /** The family being written (excluded from the check); undefined on create. */
  selfId?: string;
  slug: string;
  customPlanId: string | null;
}

/**
 * Refuses a slug or custom_plan_id held by another live family of the merchant. Called before anything
 * is changed in the unit of work (queries auto-flush pending changes). The partial unique indexes catch
 * the race this check can't; flushFamily maps them to the same errors.
 */
async function assertIdentifiersFree(
  em: EntityManager,
  { merchantId, selfId, slug, customPlanId }: Identifiers,
): Promise<void> {
  const others: FilterQuery<ProductFamily> = {
    merchantId,
    deletedAt: null,
    ...(selfId ? { id: { $ne: selfId } } : {}),
  };
  const sameSlug = await em.findOne(ProductFamilySchema, { ...others, slug });
  if (sameSlug) throw slugTaken(slug, sameSlug.id);
  if (customPlanId !== null) {
    const samePlan = await em.findOne(ProductFamilySchema, { ...others, customPlanId });
    if (samePlan) throw customPlanIdTaken(customPlanId, samePlan.id);
  }
}

async function flushFamily(em: EntityManager, family: ProductFamily): Promise<void> {
  await flushOrConflict(em, {
    product_families_live_slug_key: () => slugTaken(family.slug),
    product_families_live_custom_plan_key: () => customPlanIdTaken(family.customPlanId ?? ''),
  });
}

export async function createProductFamily(
  em: EntityManager,
  merchantId: string,
  input: CreateInput,
): Promise<ProductFamily> {
  await assertIdentifiersFree(em, { merchantId, slug: input.slug, customPlanId: input.custom_plan_id ?? null });
  const family = em.create(ProductFamilySchema, {
    id: newId('pfa'),
    merchantId,
    name: input.name,
    slug: input.slug,
    description: input.description ?? null,
    customPlanId: input.custom_plan_id ?? null,
    changeChargeBehavior: input.change_charge_behavior ?? 'next_renew',
    deletedAt: null,
  } as ProductFamily);
  await flushFamily(em, family);
  return family;
}

/** A live family of the merchant; soft-deleted, unknown and other merchants' families are all 404. */
export async function getProductFamily(em: EntityManager, merchantId: string, id: string): Promise<ProductFamily> {
  const family = await em.findOne(ProductFamilySchema, { id, merchantId, deletedAt: null });
  if (!family) throw errors.notFound('No such product family');
  return family;
}

export async function listProductFamilies(
  em: EntityManager,
  merchantId: string,
  filter: ListFamiliesFilter,
): Promise<{ items: ProductFamily[]; total: number }> {
  const where: FilterQuery<ProductFamily> = { merchantId, deletedAt: null };
  if (filter.name) where.name = { $ilike: containsPattern(filter.name) };
  if (filter.slug) where.slug = filter.slug;
  if (filter.change_charge_behavior) where.changeChargeBehavior = { $in: filter.change_charge_behavior };
  const [items, total] = await em.findAndCount(ProductFamilySchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  return { items, total };
}

export async function updateProductFamily(
  em: EntityManager,
  merchantId: string,
  id: string,
  input: UpdateInput,
): Promise<ProductFamily> {
  const family = await getProductFamily(em, merchantId, id);
  const slug = input.slug ?? family.slug;
  const customPlanId = input.custom_plan_id === undefined ? family.customPlanId : input.custom_plan_id;
  await assertIdentifiersFree(em, { merchantId, selfId: family.id, slug, customPlanId });
  if (input.name !== undefined) family.name = input.name;
  family.slug = slug;
  if (input.description !== undefined) family.description = input.description;
  family.customPlanId = customPlanId;
  if (input.change_charge_behavior !== undefined) family.changeChargeBehavior = input.change_charge_behavior;
  await flushFamily(em, family);
  return family;
}

/**
 * Soft delete: the row stays (products keep pointing at it) but it leaves lists and lookups, and its slug
 * and custom_plan_id become free for a new family.
 */
export async function deleteProductFamily(em: EntityManager, merchantId: string, id: string): Promise<void> {
  const family = await getProductFamily(em, merchantId, id);
  family.deletedAt = new Date();
  await em.flush();
}

export async function restoreProductFamily(em: EntityManager, merchantId: string, id: string): Promise<ProductFamily> {
  const family = await em.findOne(ProductFamilySchema, { id, merchantId });
  if (!family) throw errors.notFound('No such product family');
  if (family.deletedAt === null) {
    throw errors.validation(
      { id: ['the product family is not deleted'] },
      'Only a deleted product family can be restored',
      'INVALID_VALUE',
    );
  }
  await assertIdentifiersFree(em, {
    merchantId,
    selfId: family.id,
    slug: family.slug,
    customPlanId: family.customPlanId,
  });
  family.deletedAt = null;
  await flushFamily(em, family);
  return family;
}
