/**
 * Routing-profile rules of Document 3: at most one active profile per (merchant, payment_method) — enforced by
 * the partial unique index routing_profiles_active_method_key, so a race still ends in a 409 — with
 * deactivate_conflicting swapping the active profile inside the request's transaction; a default connector
 * that always names one of the merchant's connectors; version bumped on every change.
 */
import { DeadlockException, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import {
  MerchantConnectorSchema,
  RoutingProfileSchema,
  type MerchantConnector,
  type RoutingProfile,
} from '../../../db/entities';
import type { ApiKeyAuth } from '../../http/auth';
import { violatedUniqueConstraint } from '../../http/db-errors';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { newId } from '../../../domain/platform/ids';
import { actorOf, diff, recordActivity, type Actor } from '../../../domain/merchants/merchants.activity';
import type { DashboardSession } from '../../http/dashboard-auth';
import { dashboardActor, organizationOfMerchant } from '../merchant-dashboard/merchant-dashboard.service';
import type { CreateProfileBody, UpdateProfileBody } from './routing-profiles.schema';
import { activeRoutingProfileFor, deactivateRoutingProfile } from '../../../db/repositories/routing.repository';

type CreateInput = Static<typeof CreateProfileBody>;
type UpdateInput = Static<typeof UpdateProfileBody>;

/** What every mutating operation needs: the transaction's EntityManager, the merchant and who is acting. */
export interface RoutingContext {
  em: EntityManager;
  merchantId: string;
  organizationId: string;
  /** An API key, or the signed-in person on the merchant Dashboard's routing page. */
  actor: Actor;
}

/** The handler's caller as a RoutingContext: the API key, or (no key: a Dashboard route) the signed-in person. */
export async function routingContext(input: {
  em: EntityManager;
  merchantId: string;
  auth: ApiKeyAuth | undefined;
  readonly session: DashboardSession;
}): Promise<RoutingContext> {
  const { em, merchantId, auth } = input;
  if (auth) return { em, merchantId, organizationId: auth.organizationId, actor: actorOf(auth) };
  return {
    em,
    merchantId,
    organizationId: await organizationOfMerchant(em, merchantId),
    actor: dashboardActor(input.session),
  };
}

const ACTIVE_METHOD_KEY = 'routing_profiles_active_method_key';
/** Retries of the activation when concurrent requests keep winning the race (deactivate_conflicting only). */
const ACTIVATION_ATTEMPTS = 3;

const activeConflict = (paymentMethod: string, conflictingProfileId: string | null) =>
  errors.conflict(
    'ROUTING_PROFILE_ACTIVE_CONFLICT',
    `Another routing profile is already active for payment method ${paymentMethod}; deactivate it or send deactivate_conflicting: true`,
    { payment_method: paymentMethod, conflicting_profile_id: conflictingProfileId },
  );

export function record(ctx: RoutingContext, action: string, changes: Record<string, unknown>): void {
  recordActivity(ctx.em, {
    organizationId: ctx.organizationId,
    merchantId: ctx.merchantId,
    action,
    actor: ctx.actor,
    changes,
  });
}

/** One of this merchant's connectors, else 400 naming `field` (another merchant's id is indistinguishable from none). */
export async function requireConnector(
  em: EntityManager,
  merchantId: string,
  connectorId: string,
  field: string,
): Promise<MerchantConnector> {
  const connector = await em.findOne(MerchantConnectorSchema, { id: connectorId, merchantId });
  if (!connector) throw errors.invalidValue(field, 'must be a connector of this merchant');
  return connector;
}

/** The merchant's profile; `lock` takes a row lock so concurrent changes to one profile (and its tree) serialize. */
export async function getProfile(
  em: EntityManager,
  merchantId: string,
  id: string,
  lock = false,
): Promise<RoutingProfile> {
  const profile = await em.findOne(
    RoutingProfileSchema,
    { id, merchantId },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {},
  );
  if (!profile) throw errors.notFound('No such routing profile');
  return profile;
}

/** A change to the profile or its tree: routing evaluated from now on differs, so the version moves. */
export function bumpVersion(profile: RoutingProfile): void {
  profile.version += 1;
  profile.updatedAt = new Date();
}

export async function listProfiles(
  em: EntityManager,
  merchantId: string,
  page: PageRequest,
): Promise<{ items: RoutingProfile[]; total: number }> {
  const [items, total] = await em.findAndCount(
    RoutingProfileSchema,
    { merchantId },
    {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: page.limit,
      offset: offsetOf(page),
    },
  );
  return { items, total };
}

const snapshot = (profile: RoutingProfile): Record<string, unknown> => ({
  name: profile.name,
  is_active: profile.isActive,
  payment_method: profile.paymentMethod,
  default_merchant_connector_id: profile.defaultMerchantConnectorId,
  optimize: profile.optimize,
});

interface Slot {
  id: string;
  merchantId: string;
  paymentMethod: string;
}

/** The active profile for the slot's method other than the slot's own profile. */
const activeHolder = (em: EntityManager, slot: Slot) =>
  activeRoutingProfileFor(em, slot.merchantId, slot.paymentMethod, slot.id);

/** Deactivates another profile in this transaction (atomic version bump; the row lock is taken by the update). */
async function deactivate(ctx: RoutingContext, otherId: string, replacedBy: string): Promise<void> {
  let version: number | null;
  try {
    version = await deactivateRoutingProfile(ctx.em, ctx.merchantId, otherId);
  } catch (error) {
    // Two requests swapping two active profiles at once can each hold the row the other needs.
    if (!(error instanceof DeadlockException)) throw error;
    throw errors.conflict('ROUTING_PROFILE_BUSY', 'Another request is changing the same routing profiles; retry', {
      routing_profile_id: otherId,
    });
  }
  if (version === null) return;
  record(ctx, 'routing_profile.updated', {
    routing_profile_id: otherId,
    is_active: { from: true, to: false },
    deactivated_in_favour_of: replacedBy,
    version,
  });
}

/**
 * Before a profile takes (or moves into) the active slot of its method: an existing active profile there is a
 * 409, unless deactivateConflicting, which deactivates it first in this same transaction. Runs before the
 * profile's own change is flushed, because the partial unique index is checked row by row.
 */
async function claimActiveSlot(ctx: RoutingContext, slot: Slot, deactivateConflicting: boolean): Promise<void> {
  const holder = await activeHolder(ctx.em, slot);
  if (!holder) return;
  if (!deactivateConflicting) throw activeConflict(slot.paymentMethod, holder);
  await deactivate(ctx, holder, slot.id);
}

/**
 * Flushes the profile's change. A concurrent request that activated another profile after our check makes
 * the index refuse ours: the same 409 with the winner's id (or, with deactivateConflicting, deactivate the
 * winner and try again).
 */
async function flushClaimingSlot(ctx: RoutingContext, slot: Slot, deactivateConflicting: boolean): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await ctx.em.transactional((inner) => inner.flush());
      return;
    } catch (error) {
      if (violatedUniqueConstraint(error) !== ACTIVE_METHOD_KEY) throw error;
      const winner = await activeHolder(ctx.em, slot);
      if (!deactivateConflicting || !winner || attempt >= ACTIVATION_ATTEMPTS)
        throw activeConflict(slot.paymentMethod, winner);
      await deactivate(ctx, winner, slot.id);
    }
  }
}

export async function createProfile(ctx: RoutingContext, input: CreateInput): Promise<RoutingProfile> {
  await requireConnector(ctx.em, ctx.merchantId, input.default_merchant_connector_id, 'default_merchant_connector_id');
  const slot = { id: newId('rp'), merchantId: ctx.merchantId, paymentMethod: input.payment_method ?? '*' };
  const deactivateConflicting = input.deactivate_conflicting ?? false;
  if (input.is_active) await claimActiveSlot(ctx, slot, deactivateConflicting);
  const profile = ctx.em.create(RoutingProfileSchema, {
    id: slot.id,
    merchantId: ctx.merchantId,
    name: input.name,
    isActive: input.is_active ?? false,
    version: 1,
    paymentMethod: slot.paymentMethod,
    defaultMerchantConnectorId: input.default_merchant_connector_id,
    optimize: input.optimize ?? 'none',
  } as RoutingProfile);
  await flushClaimingSlot(ctx, slot, deactivateConflicting);
  record(ctx, 'routing_profile.created', { routing_profile_id: profile.id, ...snapshot(profile) });
  await ctx.em.flush();
  return profile;
}

/** Fields not sent are unchanged; a request that changes nothing leaves the version alone. */
export async function updateProfile(ctx: RoutingContext, id: string, input: UpdateInput): Promise<RoutingProfile> {
  const profile = await getProfile(ctx.em, ctx.merchantId, id, true);
  const before = snapshot(profile);
  if (input.default_merchant_connector_id !== undefined) {
    await requireConnector(
      ctx.em,
      ctx.merchantId,
      input.default_merchant_connector_id,
      'default_merchant_connector_id',
    );
  }
  const slot = {
    id: profile.id,
    merchantId: profile.merchantId,
    paymentMethod: input.payment_method ?? profile.paymentMethod,
  };
  const willBeActive = input.is_active ?? profile.isActive;
  // Becoming active, or moving an active profile to another method, claims that method's active slot;
  // deactivate_conflicting is ignored otherwise.
  const claimsSlot = willBeActive && (!profile.isActive || slot.paymentMethod !== profile.paymentMethod);
  const deactivateConflicting = input.deactivate_conflicting ?? false;
  if (claimsSlot) await claimActiveSlot(ctx, slot, deactivateConflicting);

  if (input.default_merchant_connector_id !== undefined)
    profile.defaultMerchantConnectorId = input.default_merchant_connector_id;
  if (input.name !== undefined) profile.name = input.name;
  if (input.optimize !== undefined) profile.optimize = input.optimize;
  profile.paymentMethod = slot.paymentMethod;
  profile.isActive = willBeActive;
  const changes = diff(before, snapshot(profile));
  if (Object.keys(changes).length === 0) return profile;
  bumpVersion(profile);
  await flushClaimingSlot(ctx, slot, deactivateConflicting);
  record(ctx, 'routing_profile.updated', { routing_profile_id: profile.id, ...changes, version: profile.version });
  await ctx.em.flush();
  return profile;
}

/** Unlike create/update, this operation refuses an inactive connector (Document 3, Connector states). */
export async function setDefaultConnector(
  ctx: RoutingContext,
  id: string,
  connectorId: string,
): Promise<RoutingProfile> {
  const profile = await getProfile(ctx.em, ctx.merchantId, id, true);
  const connector = await requireConnector(ctx.em, ctx.merchantId, connectorId, 'merchant_connector_id');
  if (!connector.isActive) {
    throw errors.businessRule(
      'CONNECTOR_INACTIVE',
      'An inactive connector cannot become the default connector; activate it first',
      {
        merchant_connector_id: connector.id,
      },
    );
  }
  if (profile.defaultMerchantConnectorId === connector.id) return profile;
  const from = profile.defaultMerchantConnectorId;
  profile.defaultMerchantConnectorId = connector.id;
  bumpVersion(profile);
  record(ctx, 'routing_profile.updated', {
    routing_profile_id: profile.id,
    default_merchant_connector_id: { from, to: connector.id },
    version: profile.version,
  });
  await ctx.em.flush();
  return profile;
}

/** Removes the profile and (by the foreign keys' cascade) its whole tree; an active profile stops routing at once. */
export async function deleteProfile(ctx: RoutingContext, id: string): Promise<void> {
  const profile = await getProfile(ctx.em, ctx.merchantId, id, true);
  record(ctx, 'routing_profile.deleted', {
    routing_profile_id: profile.id,
    ...snapshot(profile),
    version: profile.version,
  });
  ctx.em.remove(profile);
  await ctx.em.flush();
}
