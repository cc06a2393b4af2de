/**
 * Merchant invitations (the pending owner membership created with a merchant): verify, accept, decline. The token
 * is the only credential; only its SHA-256 is stored, it lives 7 days, and accepting or declining consumes it.
 * An invalid, expired or used token is `valid: false` on verify and 401 on accept and decline.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  MerchantMemberSchema,
  MerchantSchema,
  MerchantUserSchema,
  OrganizationSchema,
  type MerchantMember,
  type MerchantUser,
} from '../../../db/entities';
import { hashSecret } from '../../../domain/platform/crypto';
import { errors } from '../../../domain/platform/errors';
import { recordActivity } from '../../../domain/merchants/merchants.activity';
import { assertPasswordPolicy, hashPassword, verifyPassword } from '../auth/passwords.service';
import { isLocked, recordFailure, spendLoginAttempt } from '../auth/throttle.service';
import type { DashboardConfig } from '../../../domain/platform/config';

interface PendingInvitation {
  member: MerchantMember;
  user: MerchantUser;
  organizationId: string;
  organizationName: string;
}

async function findPending(em: EntityManager, token: string, lock = false): Promise<PendingInvitation | null> {
  const member = await em.findOne(
    MerchantMemberSchema,
    { invitationTokenHash: hashSecret(token), status: 'pending' },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!member?.invitationExpiresAt || member.invitationExpiresAt.getTime() <= Date.now()) return null;
  const merchant = await em.findOne(MerchantSchema, { id: member.merchantId });
  const user = await em.findOne(MerchantUserSchema, { id: member.userId });
  if (!merchant || !user) return null;
  const organization = await em.findOneOrFail(OrganizationSchema, { id: merchant.organizationId });
  return { member, user, organizationId: organization.id, organizationName: organization.name };
}

const invalidToken = () => errors.unauthenticated('The invitation is invalid, expired or already used');

export async function verifyInvitation(em: EntityManager, token: string) {
  const pending = await findPending(em, token);
  if (!pending) {
    return {
      valid: false,
      email: null,
      organization_name: null,
      role: null,
      inviter_name: null,
      expires_at: null,
      is_new_user: false,
    };
  }
  return {
    valid: true,
    email: pending.user.email,
    organization_name: pending.organizationName,
    role: pending.member.role,
    inviter_name: pending.member.inviterName,
    expires_at: (pending.member.invitationExpiresAt as Date).toISOString(),
    is_new_user: pending.user.passwordHash === null,
  };
}

async function activate(em: EntityManager, pending: PendingInvitation, action: string): Promise<void> {
  Object.assign(pending.member, {
    status: 'active',
    joinedAt: new Date(),
    invitationTokenHash: null,
    invitationExpiresAt: null,
  });
  recordActivity(em, {
    organizationId: pending.organizationId,
    merchantId: pending.member.merchantId,
    action,
    actor: { type: 'dashboard_user', id: pending.user.id },
    changes: { membership_id: pending.member.id, user_id: pending.user.id, role: pending.member.role },
  });
  await em.flush();
}

/**
 * Proving an existing account's password on an invitation goes through the sign-in throttles, as a login does: per
 * client address (429), and per e-mail failures that lock the account for the window (answered like a wrong
 * password), so an invitation link is no unlimited password oracle. `counters` is outside the request transaction,
 * so a count survives the 401 that follows it.
 */
export interface PasswordCheck {
  counters: EntityManager;
  config: DashboardConfig;
  ip: string;
}

async function proveExistingPassword(check: PasswordCheck, user: PendingInvitation['user'], password: string) {
  const attempt = await spendLoginAttempt(check.counters, check.config, check.ip);
  const refused = () =>
    errors.unauthenticated('This account has a password already; enter it to accept the invitation');
  if (await isLocked(check.counters, check.config, 'merchant', user.email)) throw refused();
  if (!(await verifyPassword(user.passwordHash, password))) {
    await recordFailure(check.counters, check.config, 'merchant', user.email);
    throw refused();
  }
  await attempt.refund();
}

/**
 * POST /invitations/accept: a new user must set a password (with its confirmation); an existing one need not, unless
 * it also renames the account: changing an existing account takes its password (the invitation link alone must not).
 */
export async function acceptInvitation(
  em: EntityManager,
  input: { token: string; name?: string; password?: string; confirm_password?: string },
  check: PasswordCheck,
): Promise<void> {
  const pending = await findPending(em, input.token, true);
  if (!pending) throw invalidToken();
  if (pending.user.passwordHash === null) {
    if (input.password === undefined) throw errors.validation({ password: ['is required for a new account'] });
    if (input.confirm_password !== input.password) {
      throw errors.validation({ confirm_password: ['must equal password'] }, 'The passwords do not match');
    }
    assertPasswordPolicy(input.password, 'password');
    pending.user.passwordHash = await hashPassword(input.password);
  } else if (input.name && input.name !== pending.user.name) {
    if (input.password === undefined) {
      throw errors.validation({ password: ["is required to change an existing account's name"] });
    }
    await proveExistingPassword(check, pending.user, input.password);
  }
  if (input.name) pending.user.name = input.name;
  await activate(em, pending, 'member.joined');
}

/** POST /auth/merchant/accept-invitation: sets the password of a new account, or proves an existing one's. */
export async function acceptMerchantInvitation(
  em: EntityManager,
  input: { token: string; password: string; name?: string },
  check: PasswordCheck,
): Promise<{ email: string }> {
  const pending = await findPending(em, input.token, true);
  if (!pending) throw invalidToken();
  if (pending.user.passwordHash === null) {
    assertPasswordPolicy(input.password, 'password');
    pending.user.passwordHash = await hashPassword(input.password);
  } else {
    // The account exists already: the invitation link must not be a way to take it over.
    await proveExistingPassword(check, pending.user, input.password);
  }
  if (input.name) pending.user.name = input.name;
  await activate(em, pending, 'member.joined');
  return { email: pending.user.email };
}

/** The pending membership is removed (the invitee is not added); the organization may invite again. */
export async function declineInvitation(em: EntityManager, token: string): Promise<void> {
  const pending = await findPending(em, token, true);
  if (!pending) throw invalidToken();
  recordActivity(em, {
    organizationId: pending.organizationId,
    merchantId: pending.member.merchantId,
    action: 'member.declined',
    actor: { type: 'dashboard_user', id: pending.user.id },
    changes: { membership_id: pending.member.id, user_id: pending.user.id, role: pending.member.role },
  });
  em.remove(pending.member);
  await em.flush();
}
