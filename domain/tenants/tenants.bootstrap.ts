/**
 * Creates an organization, one merchant and the four keys a newcomer needs (organization and merchant,
 * secret and public, all scopes). Used by `npm run bootstrap`, the first `npm start`, and test factories.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import {
  MerchantMemberSchema,
  MerchantSchema,
  MerchantUserSchema,
  OrganizationMemberSchema,
  OrganizationSchema,
  OrganizationUserSchema,
  PasswordResetTokenSchema,
  type Merchant,
  type MerchantMember,
  type MerchantUser,
  type Organization,
  type OrganizationMember,
  type OrganizationUser,
  type PasswordResetToken,
} from '../../db/entities';
import { hashSecret } from '../platform/crypto';
import { issueApiKey } from '../api-keys/api-keys.service';
import { newId } from '../platform/ids';
import { uniqueSlug } from '../platform/slug';

export interface BootstrapResult {
  organization_id: string;
  merchant_id: string;
  organization_secret_key: string;
  organization_public_key: string;
  merchant_secret_key: string;
  merchant_public_key: string;
}

export async function bootstrapTenant(
  em: EntityManager,
  names: { organizationName: string; merchantName: string },
): Promise<BootstrapResult> {
  return em.transactional(async (tx) => {
    const organization = tx.create(OrganizationSchema, {
      id: newId('org'),
      name: names.organizationName,
    } as Organization);
    // Foreign keys are plain columns (no ORM relations), so parents are flushed before children.
    await tx.flush();
    const merchant = tx.create(MerchantSchema, {
      id: newId('mrc'),
      organizationId: organization.id,
      name: names.merchantName,
      slug: uniqueSlug(names.merchantName),
      status: 'active',
      networkEnrolled: false,
    } as Merchant);
    await tx.flush();
    const issue = (kind: 'secret' | 'public', merchantId?: string) =>
      issueApiKey(tx, { organizationId: organization.id, merchantId, kind }).then(({ key }) => key);
    return {
      organization_id: organization.id,
      merchant_id: merchant.id,
      organization_secret_key: await issue('secret'),
      organization_public_key: await issue('public'),
      merchant_secret_key: await issue('secret', merchant.id),
      merchant_public_key: await issue('public', merchant.id),
    };
  });
}

export interface BootstrapOwner {
  organization_user_id: string;
  email: string;
  /** One-time token of a password-set link (single use, 7 days): POST /api/v1/auth/reset-password. */
  password_setup_token: string;
  password_setup_expires_at: string;
}

const OWNER_SETUP_SECONDS = 7 * 24 * 60 * 60;

/**
 * The organization's first Dashboard owner, with no password: it is set through a one-time link (the reset
 * completion endpoint), so no password is ever printed or stored in clear. An existing organization user with
 * that e-mail is made owner instead and gets a link too.
 */
export async function bootstrapOrganizationOwner(
  em: EntityManager,
  organizationId: string,
  rawEmail: string,
): Promise<BootstrapOwner> {
  const email = rawEmail.trim().toLowerCase();
  return em.transactional(async (tx) => {
    let user = await tx.findOne(OrganizationUserSchema, { email });
    if (!user) {
      user = tx.create(OrganizationUserSchema, {
        id: newId('usr'),
        email,
        name: null,
        passwordHash: null,
        lastLoginAt: null,
      } as OrganizationUser);
      await tx.flush();
    }
    tx.create(OrganizationMemberSchema, {
      id: newId('omb'),
      organizationId,
      userId: user.id,
      role: 'owner',
      status: 'active',
    } as OrganizationMember);
    const setup = passwordSetup(tx, 'organization', user.id);
    await tx.flush();
    return { organization_user_id: user.id, email, ...setup };
  });
}

/** A one-time password-set link for a new Dashboard account (the reset completion endpoint takes it). */
function passwordSetup(tx: EntityManager, identity: 'organization' | 'merchant', userId: string) {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + OWNER_SETUP_SECONDS * 1000);
  tx.create(PasswordResetTokenSchema, {
    id: newId('prt'),
    identity,
    userId,
    tokenHash: hashSecret(token),
    expiresAt,
    usedAt: null,
  } as PasswordResetToken);
  return { password_setup_token: token, password_setup_expires_at: expiresAt.toISOString() };
}

export interface BootstrapMerchantOwner {
  merchant_user_id: string;
  email: string;
  /** One-time token of a password-set link (single use, 7 days): the Dashboard's /dashboard/reset-password page. */
  password_setup_token: string;
  password_setup_expires_at: string;
}

/**
 * The merchant's first merchant Dashboard owner (the person who signs in at /dashboard/), with no password: like
 * the organization owner, it is set through a one-time link. An existing merchant user of the organization with
 * that e-mail becomes owner instead and gets a link too.
 */
export async function bootstrapMerchantOwner(
  em: EntityManager,
  organizationId: string,
  merchantId: string,
  rawEmail: string,
): Promise<BootstrapMerchantOwner> {
  const email = rawEmail.trim().toLowerCase();
  return em.transactional(async (tx) => {
    let user = await tx.findOne(MerchantUserSchema, { organizationId, email });
    if (!user) {
      user = tx.create(MerchantUserSchema, {
        id: newId('usr'),
        organizationId,
        email,
        name: null,
        passwordHash: null,
        lastLoginAt: null,
      } as MerchantUser);
      await tx.flush();
    }
    tx.create(MerchantMemberSchema, {
      id: newId('mbr'),
      merchantId,
      userId: user.id,
      role: 'owner',
      status: 'active',
      invitationTokenHash: null,
      invitationExpiresAt: null,
      joinedAt: new Date(),
      inviterName: null,
    } as MerchantMember);
    const setup = passwordSetup(tx, 'merchant', user.id);
    await tx.flush();
    return { merchant_user_id: user.id, email, ...setup };
  });
}
