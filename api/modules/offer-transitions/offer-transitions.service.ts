/**
 * Offer transition rules of Document 2: one transition per ordered pair of distinct live offers of the
 * merchant in the same product family; the pair never changes; the effective change-charge behaviour comes
 * from workflows/lib/change-charge-behavior.ts, the function the subscription workflow uses too.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import type { Static } from '@sinclair/typebox';
import {
  OfferSchema,
  OfferTransitionSchema,
  ProductFamilySchema,
  ProductSchema,
  type ChangeChargeBehavior,
  type OfferTransition,
  type ProductFamily,
} from '../../../db/entities';
import { effectiveChangeChargeBehavior, type EffectiveBehavior } from '../../../workflows/lib/change-charge-behavior';
import { newId } from '../../../domain/platform/ids';
import { errors } from '../../../domain/platform/errors';
import { flushOrConflict } from '../../http/db-errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import type { CreateOfferTransitionBody, UpdateOfferTransitionBody } from './offer-transitions.schema';

type CreateInput = Static<typeof CreateOfferTransitionBody>;
type UpdateInput = Static<typeof UpdateOfferTransitionBody>;

export interface ListTransitionsFilter extends PageRequest {
  from_offer_id?: string;
  to_offer_id?: string;
  is_active?: boolean;
  change_charge_behavior?: ChangeChargeBehavior[];
}

export interface EffectiveBehaviorResult extends EffectiveBehavior {
  fromOfferId: string;
  toOfferId: string;
  transitionId: string | null;
  productFamilyId: string;
}

const pairExists = (fromOfferId: string, toOfferId: string) =>
  errors.conflict('OFFER_TRANSITION_ALREADY_EXISTS', 'A transition for this pair of offers already exists', {
    from_offer_id: fromOfferId,
    to_offer_id: toOfferId,
  });

const invalidPair = (field: string, message: string) =>
  errors.validation({ [field]: [message] }, 'The offer pair is not valid', 'INVALID_VALUE');

/**
 * The family both offers' products share. 400 validation_error (naming the field) when the ids are equal,
 * an offer is not a live offer of the merchant, or the products are not in one family.
 */
async function familyOfPair(
  em: EntityManager,
  merchantId: string,
  fromOfferId: string,
  toOfferId: string,
): Promise<ProductFamily> {
  if (fromOfferId === toOfferId) throw invalidPair('to_offer_id', 'must differ from from_offer_id');
  const offers = await em.find(OfferSchema, { id: { $in: [fromOfferId, toOfferId] }, merchantId, deletedAt: null });
  const from = offers.find((offer) => offer.id === fromOfferId);
  const to = offers.find((offer) => offer.id === toOfferId);
  if (!from) throw invalidPair('from_offer_id', 'must be a live offer of this merchant');
  if (!to) throw invalidPair('to_offer_id', 'must be a live offer of this merchant');
  const products = await em.find(ProductSchema, { id: { $in: [from.productId, to.productId] }, merchantId });
  const familyOf = (productId: string) => products.find((product) => product.id === productId)?.productFamilyId ?? null;
  const fromFamily = familyOf(from.productId);
  if (fromFamily === null) throw invalidPair('from_offer_id', 'must be an offer of a product in a product family');
  if (familyOf(to.productId) !== fromFamily)
    throw invalidPair('to_offer_id', 'must be an offer in the same product family as from_offer_id');
  return em.findOneOrFail(ProductFamilySchema, { id: fromFamily });
}

export async function createOfferTransition(
  em: EntityManager,
  merchantId: string,
  input: CreateInput,
): Promise<OfferTransition> {
  await familyOfPair(em, merchantId, input.from_offer_id, input.to_offer_id);
  const existing = await em.count(OfferTransitionSchema, {
    fromOfferId: input.from_offer_id,
    toOfferId: input.to_offer_id,
  });
  if (existing > 0) throw pairExists(input.from_offer_id, input.to_offer_id);
  const transition = em.create(OfferTransitionSchema, {
    id: newId('oft'),
    merchantId,
    fromOfferId: input.from_offer_id,
    toOfferId: input.to_offer_id,
    changeChargeBehavior: input.change_charge_behavior ?? null,
    isActive: input.is_active ?? true,
  } as OfferTransition);
  await flushOrConflict(em, { offer_transitions_pair_key: () => pairExists(input.from_offer_id, input.to_offer_id) });
  return transition;
}

export async function getOfferTransition(em: EntityManager, merchantId: string, id: string): Promise<OfferTransition> {
  const transition = await em.findOne(OfferTransitionSchema, { id, merchantId });
  if (!transition) throw errors.notFound('No such offer transition');
  return transition;
}

export async function listOfferTransitions(
  em: EntityManager,
  merchantId: string,
  filter: ListTransitionsFilter,
): Promise<{ items: OfferTransition[]; total: number }> {
  const where: FilterQuery<OfferTransition> = { merchantId };
  if (filter.from_offer_id) where.fromOfferId = filter.from_offer_id;
  if (filter.to_offer_id) where.toOfferId = filter.to_offer_id;
  if (filter.is_active !== undefined) where.isActive = filter.is_active;
  if (filter.change_charge_behavior) where.changeChargeBehavior = { $in: filter.change_charge_behavior };
  const [items, total] = await em.findAndCount(OfferTransitionSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  return { items, total };
}

export async function updateOfferTransition(
  em: EntityManager,
  merchantId: string,
  id: string,
  input: UpdateInput,
): Promise<OfferTransition> {
  const transition = await getOfferTransition(em, merchantId, id);
  if (input.change_charge_behavior !== undefined) transition.changeChargeBehavior = input.change_charge_behavior;
  if (input.is_active !== undefined) transition.isActive = input.is_active;
  await em.flush();
  return transition;
}

/** A hard delete: moves between the pair then use the family default. */
export async function deleteOfferTransition(em: EntityManager, merchantId: string, id: string): Promise<void> {
  const transition = await getOfferTransition(em, merchantId, id);
  em.remove(transition);
  await em.flush();
}

/** The behaviour a subscription moving from one offer to the other gets, and where it came from. */
export async function resolveEffectiveBehavior(
  em: EntityManager,
  merchantId: string,
  fromOfferId: string,
  toOfferId: string,
): Promise<EffectiveBehaviorResult> {
  const family = await familyOfPair(em, merchantId, fromOfferId, toOfferId);
  const transition = await em.findOne(OfferTransitionSchema, { fromOfferId, toOfferId, merchantId });
  const effective = effectiveChangeChargeBehavior({
    transition: transition && { isActive: transition.isActive, changeChargeBehavior: transition.changeChargeBehavior },
    familyBehavior: family.changeChargeBehavior,
  });
  return { ...effective, fromOfferId, toOfferId, transitionId: transition?.id ?? null, productFamilyId: family.id };
}
