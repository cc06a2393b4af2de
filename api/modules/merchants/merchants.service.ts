/**
 * Merchant management of Document 3 (organization keys only): a merchant belongs to the calling key's
 * organization or does not exist for it (404). Every change is written to the activity log in the same
 * transaction.
 */
import { ForeignKeyConstraintViolationException, LockMode, type FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import {
  MerchantActivitySchema,
  MerchantMemberSchema,
  MerchantSchema,
  OrganizationSchema,
  type Merchant,
  type MerchantActivity,
  type MerchantStatus,
} from '../../../db/entities';
import type { ApiKeyAuth } from '../../http/auth';
import { violatedUniqueConstraint } from '../../http/db-errors';
import { errors, type FieldErrors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { newId } from '../../../domain/platform/ids';
import { slugify, uniqueSlug } from '../../../domain/platform/slug';
import { actorOf, diff, recordActivity } from '../../../domain/merchants/merchants.activity';
import { enqueueMail } from '../../../domain/mail/mail.outbox';
import { merchantInvitationMail } from '../../../domain/mail/mail.templates';
import type { Config } from '../../../domain/platform/config';
import {
  normalizeAddress,
  normalizeName,
  normalizePhone,
  normalizeWebsite,
  type FieldResult,
} from './merchant-fields.rules';
import { addPendingOwner } from './members.service';
import { deleteRevokedMerchantKeys } from '../../../db/repositories/api-keys.repository';
import {
  deleteMerchantRow,
  deleteUsersWithoutMembership,
  merchantHasRows,
  type MerchantRowsCheck,
} from '../../../db/repositories/merchants.repository';
import type { CreateMerchantBody, UpdateMerchantBody } from './merchants.schema';

type CreateInput = Static<typeof CreateMerchantBody>;
type UpdateInput = Static<typeof UpdateMerchantBody>;

const SLUG_CONSTRAINT = 'merchants_slug_key';
/** Generated slugs: the plain one, then random suffixes; a sixth collision in a row is not plausible. */
const GENERATED_SLUG_ATTEMPTS = 6;

const slugTaken = (slug: string) =>
  // No existing id in details: the slug may belong to another organization's merchant.
  errors.conflict('MERCHANT_SLUG_TAKEN', 'Another merchant already uses this slug', { slug });

/** The fields a merchant exposes for editing, in their API form: what activity diffs compare. */
function editable(merchant: Merchant): Record<string, unknown> {
  return {
    name: merchant.name,
    status: merchant.status,
    external_reference: merchant.externalReference,
    business_registration_number: merchant.businessRegistrationNumber,
    mcc: merchant.mcc,
    website: merchant.website,
    phone_number: merchant.phoneNumber,
    // jsonb returns keys in its own order; a fixed order lets diff() compare addresses by value.
    address: merchant.address ? normalizeAddress(merchant.address) : null,
  };
}

/** Runs the code-level field rules over whatever was sent; one 400 naming every bad field. */
function normalizeFields(input: { name?: string; website?: string | null; phone_number?: string }) {
  const problems: FieldErrors = {};
  const take = <T>(field: string, result: FieldResult<T>): T | undefined => {
    if ('error' in result) {
      problems[field] = [result.error];
      return undefined;
    }
    return result.value;
  };
  const out = {
    name: input.name === undefined ? undefined : take('name', normalizeName(input.name)),
    website: input.website == null ? input.website : take('website', normalizeWebsite(input.website)),
    phone_number:
      input.phone_number === undefined ? undefined : take('phone_number', normalizePhone(input.phone_number)),
  };
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  return out;
}

export async function getMerchant(
  em: EntityManager,
  organizationId: string,
  id: string,
  lock = false,
): Promise<Merchant> {
  const merchant = await em.findOne(
    MerchantSchema,
    { id, organizationId },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!merchant) throw errors.notFound('No such merchant');
  return merchant;
}

export async function listMerchants(
  em: EntityManager,
  organizationId: string,
  filter: PageRequest & { status?: MerchantStatus[] },
): Promise<{ items: Merchant[]; total: number }> {
  const where: FilterQuery<Merchant> = { organizationId };
  if (filter.status) where.status = { $in: filter.status };
  const [items, total] = await em.findAndCount(MerchantSchema, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: filter.limit,
    offset: offsetOf(filter),
  });
  return { items, total };
}

/** Inserts inside a savepoint so a slug collision leaves the request transaction usable. */
async function insertMerchant(
  em: EntityManager,
  data: Omit<Merchant, 'createdAt' | 'updatedAt'>,
): Promise<Merchant | null> {
  try {
    return await em.transactional(async (inner) => {
      const merchant = inner.create(MerchantSchema, data as Merchant);
      await inner.flush();
      return merchant;
    });
  } catch (error) {
    if (violatedUniqueConstraint(error) === SLUG_CONSTRAINT) return null;
    throw error;
  }
}

export async function createMerchant(
  em: EntityManager,
  config: Config,
  auth: ApiKeyAuth,
  input: CreateInput,
): Promise<Merchant> {
  const fields = normalizeFields(input);
  const base = {
    id: newId('mrc'),
    organizationId: auth.organizationId,
    name: fields.name as string,
    externalReference: input.external_reference ?? null,
    businessRegistrationNumber: input.business_registration_number ?? null,
    mcc: input.mcc ?? null,
    phoneNumber: fields.phone_number ?? null,
    address: input.address ? normalizeAddress(input.address) : null,
    website: fields.website ?? null,
    status: 'active' as const,
    networkEnrolled: false,
  };

  let merchant: Merchant | null = null;
  if (input.slug !== undefined) {
    if (await em.count(MerchantSchema, { slug: input.slug })) throw slugTaken(input.slug);
    merchant = await insertMerchant(em, { ...base, slug: input.slug });
    if (!merchant) throw slugTaken(input.slug);
  } else {
    // Slugs are unique across all organizations: try the plain one, then suffixed ones.
    for (let attempt = 0; !merchant && attempt < GENERATED_SLUG_ATTEMPTS; attempt += 1) {
      const candidate = attempt === 0 ? slugify(base.name) : uniqueSlug(base.name);
      if (await em.count(MerchantSchema, { slug: candidate })) continue;
      merchant = await insertMerchant(em, { ...base, slug: candidate });
    }
    if (!merchant) throw new Error('Could not generate a free merchant slug');
  }

  const actor = actorOf(auth);
  const created = Object.fromEntries(
    Object.entries({ ...editable(merchant), slug: merchant.slug }).filter(([, value]) => value !== null),
  );
  recordActivity(em, {
    organizationId: auth.organizationId,
    merchantId: merchant.id,
    action: 'merchant.created',
    actor,
    changes: diff({}, created),
  });
  await em.flush();

  const owner = await addPendingOwner(em, {
    organizationId: auth.organizationId,
    merchantId: merchant.id,
    email: input.primary_email,
    name: input.primary_name ?? null,
  });
  recordActivity(em, {
    organizationId: auth.organizationId,
    merchantId: merchant.id,
    action: 'member.invited',
    actor,
    changes: {
      membership_id: owner.member.id,
      user_id: owner.user.id,
      email: owner.user.email,
      role: owner.member.role,
      new_user: owner.newUser,
      invitation_expires_at: owner.member.invitationExpiresAt?.toISOString() ?? null,
    },
  });
  await em.flush();
  const organization = await em.findOneOrFail(OrganizationSchema, { id: auth.organizationId });
  // In this transaction: the invitation goes out exactly when the merchant exists.
  await enqueueMail(em, config.encryptionKeys, {
    kind: 'merchant_invitation',
    to: owner.user.email,
    ...merchantInvitationMail({
      appUrl: config.dashboard.appUrl,
      token: owner.invitationToken,
      merchantName: merchant.name,
      organizationName: organization.name,
      inviter: null,
      role: owner.member.role,
      expiresAt: owner.member.invitationExpiresAt as Date,
    }),
  });
  return merchant;
}

/** Frozen once the merchant is enrolled with the card networks (Document 3, Merchant states). */
const LOCKED_WHEN_ENROLLED = ['name', 'website', 'mcc', 'address'] as const;

/** The updated merchant, and whether this update made it active again (which ends its billing holds). */
export async function updateMerchant(
  em: EntityManager,
  auth: ApiKeyAuth,
  id: string,
  input: UpdateInput,
): Promise<{ merchant: Merchant; reactivated: boolean }> {
  const merchant = await getMerchant(em, auth.organizationId, id, true);
  const fields = normalizeFields(input);
  const before = editable(merchant);
  const wanted: Record<string, unknown> = {
    ...before,
    ...(input.name !== undefined ? { name: fields.name } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(input.external_reference !== undefined ? { external_reference: input.external_reference } : {}),
    ...(input.business_registration_number !== undefined
      ? { business_registration_number: input.business_registration_number }
      : {}),
    ...(input.mcc !== undefined ? { mcc: input.mcc } : {}),
    ...(input.website !== undefined ? { website: fields.website } : {}),
    ...(input.phone_number !== undefined ? { phone_number: fields.phone_number } : {}),
    ...(input.address !== undefined ? { address: normalizeAddress(input.address) } : {}),
  };
  const changes = diff(before, wanted);

  if (merchant.networkEnrolled) {
    // Re-sending a locked field's current value is a no-op, not a conflict: whole-object PATCHes keep working.
    const locked = LOCKED_WHEN_ENROLLED.filter((field) => field in changes);
    if (locked.length > 0) {
      throw errors.conflict(
        'MERCHANT_FIELD_LOCKED',
        `The merchant is enrolled with the card networks; ${locked.join(', ')} can no longer be changed`,
        {
          fields: locked,
        },
      );
    }
  }
  if (Object.keys(changes).length === 0) return { merchant, reactivated: false };

  merchant.name = wanted.name as string;
  merchant.status = wanted.status as MerchantStatus;
  merchant.externalReference = wanted.external_reference as string | null;
  merchant.businessRegistrationNumber = wanted.business_registration_number as string | null;
  merchant.mcc = wanted.mcc as string | null;
  merchant.website = wanted.website as string | null;
  merchant.phoneNumber = wanted.phone_number as string | null;
  merchant.address = wanted.address as Merchant['address'];
  recordActivity(em, {
    organizationId: auth.organizationId,
    merchantId: merchant.id,
    action: 'merchant.updated',
    actor: actorOf(auth),
    changes,
  });
  await em.flush();
  return { merchant, reactivated: 'status' in changes && merchant.status === 'active' };
}

/**
 * What keeps a merchant from being deleted: any row of these tables naming it. Areas that add
 * merchant-owned tables (transactions, orders, instruments …) append theirs here. Soft-deleted catalog rows
 * count: they are history, and still reference the merchant.
 */
export const MERCHANT_ACTIVITY_CHECKS: Array<MerchantRowsCheck & { label: string }> = [
  { table: 'customers', label: 'customers' },
  { table: 'product_families', label: 'catalog' },
  { table: 'products', label: 'catalog' },
  { table: 'offers', label: 'catalog' },
  { table: 'checkout_sessions', label: 'checkout_sessions' },
  { table: 'merchant_connectors', label: 'connectors' },
  { table: 'routing_profiles', label: 'routing_profiles' },
  { table: 'transactions', label: 'transactions' },
  { table: 'orders', label: 'orders' },
  { table: 'payment_instruments', label: 'payment_instruments' },
  { table: 'subscriptions', label: 'subscriptions' },
  { table: 'api_keys', label: 'live_api_keys', where: "status = 'active'" },
];

async function blockingActivity(em: EntityManager, merchant: Merchant): Promise<string[]> {
  const found = new Set<string>();
  for (const check of MERCHANT_ACTIVITY_CHECKS) {
    if (found.has(check.label)) continue;
    if (await merchantHasRows(em, merchant.id, check)) found.add(check.label);
  }
  if (merchant.networkEnrolled) found.add('network_enrollment');
  return [...found];
}

const inUse = (blocking: string[]) =>
  errors.conflict(
    'RESOURCE_IN_USE',
    `The merchant has activity and cannot be deleted (${blocking.join(', ')}); set its status to inactive instead`,
    {
      blocking,
    },
  );

/**
 * Hard delete of a merchant without activity, its memberships, the users left without any membership, and
 * its revoked API keys. Its activity log stays (merchant_id is not a foreign key), ending with merchant.deleted.
 */
export async function deleteMerchant(em: EntityManager, auth: ApiKeyAuth, id: string): Promise<void> {
  // The row lock makes a concurrent insert of a child row either finish first (and be seen below) or wait
  // for this transaction and then fail its own foreign-key check.
  const merchant = await getMerchant(em, auth.organizationId, id, true);
  const blocking = await blockingActivity(em, merchant);
  if (blocking.length > 0) throw inUse(blocking);
  try {
    await em.transactional(async (inner) => {
      const members = await inner.find(MerchantMemberSchema, { merchantId: merchant.id });
      await inner.nativeDelete(MerchantMemberSchema, { merchantId: merchant.id });
      await deleteUsersWithoutMembership(
        inner,
        members.map((member) => member.userId),
      );
      await deleteRevokedMerchantKeys(inner, merchant.id);
      await deleteMerchantRow(inner, auth.organizationId, merchant.id);
    });
  } catch (error) {
    // A table missing from MERCHANT_ACTIVITY_CHECKS still ends in the documented 409, never a 500.
    if (error instanceof ForeignKeyConstraintViolationException) throw inUse(['other_records']);
    throw error;
  }
  recordActivity(em, {
    organizationId: auth.organizationId,
    merchantId: merchant.id,
    action: 'merchant.deleted',
    actor: actorOf(auth),
    changes: { name: merchant.name, slug: merchant.slug, external_reference: merchant.externalReference },
  });
  await em.flush();
}

export async function listActivity(
  em: EntityManager,
  organizationId: string,
  merchantId: string,
  page: PageRequest,
): Promise<{ items: MerchantActivity[]; total: number }> {
  await getMerchant(em, organizationId, merchantId);
  const [items, total] = await em.findAndCount(
    MerchantActivitySchema,
    { organizationId, merchantId },
    {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: page.limit,
      offset: offsetOf(page),
    },
  );
  return { items, total };
}
