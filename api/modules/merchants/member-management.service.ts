/**
 * Team management of a merchant (docs/api-decisions.md, "Merchant team"): invite a member, change a role, remove a
 * member or revoke a pending invitation, resend an invitation. The same rules for the organization key and for a
 * merchant owner or admin in the Dashboard:
 * - only an owner (or the organization key) grants, changes or takes away the owner role; an admin manages admins
 *   and viewers (viewers never reach here: the Dashboard refuses their writes before the handler);
 * - a merchant keeps an owner: the last active owner cannot be removed or demoted (409 LAST_OWNER), nor the last
 *   pending owner of a merchant that has no active one yet.
 * Every change is in the activity log and, for an invitation, in the mail outbox, in the request's transaction.
 * Removing a member names the keys they minted that still work, and revokes them when asked (`revokeKeys`).
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type MEMBER_ROLES,
  MerchantMemberSchema,
  MerchantSchema,
  MerchantUserSchema,
  OrganizationSchema,
  type MerchantMember,
  type MerchantUser,
} from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { recordActivity, type Actor } from '../../../domain/merchants/merchants.activity';
import { enqueueMail } from '../../../domain/mail/mail.outbox';
import { merchantInvitationMail } from '../../../domain/mail/mail.templates';
import type { Config } from '../../../domain/platform/config';
import { addPendingMember, type MemberView } from './members.service';
import { settleKeysMintedBy } from '../api-keys/api-keys.service';

export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Who asks: the organization key (no role), or a Dashboard user with their role on this merchant. */
export interface TeamCaller {
  actor: Actor;
  /** null for the organization key, which may do everything. */
  role: MemberRole | null;
  /** Shown on the invitation as who sent it; null: the organization's name is shown. */
  name: string | null;
  /** The Dashboard user's sign-in address: how an invitation mail names who sent it. null for the organization key. */
  email: string | null;
}

export interface TeamScope {
  organizationId: string;
  merchantId: string;
}

const ownersOnly = () =>
  errors.forbidden('Only an owner can invite, change or remove an owner; ask an owner of this merchant');

function requireOwnerPower(caller: TeamCaller, ...roles: MemberRole[]): void {
  if (caller.role !== null && caller.role !== 'owner' && roles.includes('owner')) throw ownersOnly();
}

async function memberOf(em: EntityManager, scope: TeamScope, memberId: string): Promise<MemberView> {
  const member = await em.findOne(
    MerchantMemberSchema,
    { id: memberId, merchantId: scope.merchantId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!member) throw errors.notFound('No such member of this merchant', 'MEMBER_NOT_FOUND');
  const user = await em.findOneOrFail(MerchantUserSchema, { id: member.userId });
  return { member, user };
}

/**
 * Refuses when `leaving` is the owner the merchant cannot lose. The merchant's owner rows are locked first, so two
 * concurrent removals of two owners cannot both see the other one still there.
 */
async function assertKeepsAnOwner(em: EntityManager, leaving: MerchantMember): Promise<void> {
  if (leaving.role !== 'owner') return;
  const owners = await em.find(
    MerchantMemberSchema,
    { merchantId: leaving.merchantId, role: 'owner' },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  const others = owners.filter((owner) => owner.id !== leaving.id);
  const remaining = leaving.status === 'active' ? others.filter((owner) => owner.status === 'active') : others;
  if (remaining.length === 0) {
    throw errors.conflict(
      'LAST_OWNER',
      'A merchant keeps at least one owner: make another member owner first, then change or remove this one',
      { membership_id: leaving.id },
    );
  }
}

async function sendInvitation(
  em: EntityManager,
  config: Config,
  scope: TeamScope,
  caller: TeamCaller,
  view: MemberView,
  token: string,
) {
  const merchant = await em.findOneOrFail(MerchantSchema, { id: scope.merchantId });
  const organization = await em.findOneOrFail(OrganizationSchema, { id: scope.organizationId });
  await enqueueMail(em, config.encryptionKeys, {
    kind: 'merchant_invitation',
    to: view.user.email,
    ...merchantInvitationMail({
      appUrl: config.dashboard.appUrl,
      token,
      merchantName: merchant.name,
      organizationName: organization.name,
      inviter: caller.email ? { email: caller.email, name: caller.name } : null,
      role: view.member.role,
      expiresAt: view.member.invitationExpiresAt as Date,
    }),
  });
}

export async function inviteMember(
  em: EntityManager,
  config: Config,
  scope: TeamScope,
  caller: TeamCaller,
  input: { email: string; name?: string; role: MemberRole },
): Promise<MemberView> {
  requireOwnerPower(caller, input.role);
  const invited = await addPendingMember(em, {
    ...scope,
    email: input.email,
    name: input.name ?? null,
    role: input.role,
    inviterName: caller.name,
  });
  recordActivity(em, {
    ...scope,
    action: 'member.invited',
    actor: caller.actor,
    changes: {
      membership_id: invited.member.id,
      user_id: invited.user.id,
      email: invited.user.email,
      role: invited.member.role,
      new_user: invited.newUser,
      invitation_expires_at: invited.member.invitationExpiresAt?.toISOString() ?? null,
    },
  });
  await em.flush();
  await sendInvitation(em, config, scope, caller, invited, invited.invitationToken);
  return { member: invited.member, user: invited.user };
}

export async function changeMemberRole(
  em: EntityManager,
  scope: TeamScope,
  caller: TeamCaller,
  memberId: string,
  role: MemberRole,
): Promise<MemberView> {
  const view = await memberOf(em, scope, memberId);
  if (view.member.role === role) return view;
  requireOwnerPower(caller, view.member.role, role);
  await assertKeepsAnOwner(em, view.member);
  recordActivity(em, {
    ...scope,
    action: 'member.role_changed',
    actor: caller.actor,
    changes: { membership_id: view.member.id, user_id: view.user.id, role: { from: view.member.role, to: role } },
  });
  view.member.role = role;
  await em.flush();
  return view;
}

/**
 * Removes an active member, or revokes a pending invitation (its token stops working at once). A member's keys
 * outlive them unless `revokeKeys`: a merchant's integration may run on them, so only the remover can tell.
 */
export async function removeMember(
  em: EntityManager,
  scope: TeamScope,
  caller: TeamCaller,
  memberId: string,
  options: { revokeKeys: boolean },
): Promise<void> {
  const view = await memberOf(em, scope, memberId);
  requireOwnerPower(caller, view.member.role);
  await assertKeepsAnOwner(em, view.member);
  const changes = {
    membership_id: view.member.id,
    user_id: view.user.id,
    email: view.user.email,
    role: view.member.role,
  };
  if (view.member.status === 'pending') {
    recordActivity(em, { ...scope, action: 'member.invitation_revoked', actor: caller.actor, changes });
  } else {
    const keys = await settleKeysMintedBy(em, scope.merchantId, view.user.id, caller.actor, options.revokeKeys);
    recordActivity(em, {
      ...scope,
      action: 'member.removed',
      actor: caller.actor,
      changes: { ...changes, api_keys_revoked: keys.revoked, api_keys_kept: keys.kept },
    });
  }
  em.remove(view.member);
  await em.flush();
}

/** A fresh token and a fresh 7 days: the old link stops working (only a hash is stored, so it cannot be re-sent). */
export async function resendInvitation(
  em: EntityManager,
  config: Config,
  scope: TeamScope,
  caller: TeamCaller,
  memberId: string,
  mint: () => { token: string; hash: string; expiresAt: Date },
): Promise<MemberView> {
  const view = await memberOf(em, scope, memberId);
  if (view.member.status !== 'pending') {
    throw errors.conflict(
      'MEMBER_ALREADY_ACTIVE',
      'This member has accepted the invitation already; there is nothing to resend',
      {
        membership_id: view.member.id,
      },
    );
  }
  requireOwnerPower(caller, view.member.role);
  const invitation = mint();
  view.member.invitationTokenHash = invitation.hash;
  view.member.invitationExpiresAt = invitation.expiresAt;
  if (caller.name) view.member.inviterName = caller.name;
  recordActivity(em, {
    ...scope,
    action: 'member.invitation_resent',
    actor: caller.actor,
    changes: {
      membership_id: view.member.id,
      user_id: view.user.id,
      invitation_expires_at: invitation.expiresAt.toISOString(),
    },
  });
  await em.flush();
  await sendInvitation(em, config, scope, caller, view, invitation.token);
  return view;
}

/** The Dashboard caller: their role on this merchant (an active membership: the route checked it) and name. */
export async function dashboardCaller(em: EntityManager, merchantId: string, userId: string): Promise<TeamCaller> {
  const member = await em.findOneOrFail(MerchantMemberSchema, { merchantId, userId, status: 'active' });
  const user: MerchantUser = await em.findOneOrFail(MerchantUserSchema, { id: userId });
  return {
    actor: { type: 'dashboard_user', id: userId },
    role: member.role,
    name: user.name ?? user.email,
    email: user.email,
  };
}
