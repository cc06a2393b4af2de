/**
 * Merchant members: pending memberships with their invitation (the owner created with a merchant, and people
 * invited later: member-management.service.ts), and the members listing.
 *
 * An invitation token is 32 random bytes (base64url) and only its SHA-256 is stored. The token goes once to the
 * mail outbox with the owner's invitation (merchants.service.ts) and is never returned, logged or recorded in the
 * activity log; a hash can't be turned back into a token, so a resend must mint a fresh one.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantMemberSchema, MerchantUserSchema, type MerchantMember, type MerchantUser } from '../../../db/entities';
import { hashSecret } from '../../../domain/platform/crypto';
import { newId } from '../../../domain/platform/ids';
import { errors } from '../../../domain/platform/errors';
import { violatedUniqueConstraint } from '../../http/db-errors';
import { offsetOf, type PageRequest } from '../../http/pagination';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const INVITATION_TOKEN_BYTES = 32;

/** A new invitation token and what is stored of it. The caller must not persist or expose `token`. */
export function mintInvitation(now = new Date()): { token: string; hash: string; expiresAt: Date } {
  const token = randomBytes(INVITATION_TOKEN_BYTES).toString('base64url');
  return { token, hash: hashSecret(token), expiresAt: new Date(now.getTime() + INVITATION_TTL_MS) };
}

/** The organization's user with this e-mail (stored lowercase), creating it when absent. */
async function findOrCreateUser(
  em: EntityManager,
  organizationId: string,
  email: string,
  name: string | null,
): Promise<{ user: MerchantUser; created: boolean }> {
  const existing = await em.findOne(MerchantUserSchema, { organizationId, email });
  if (existing) return { user: existing, created: false };
  try {
    // A savepoint: when a concurrent request provisions the same address first, only this insert rolls back.
    const user = await em.transactional(async (inner) => {
      const created = inner.create(MerchantUserSchema, {
        id: newId('usr'),
        organizationId,
        email,
        name,
        passwordHash: null,
      } as MerchantUser);
      await inner.flush();
      return created;
    });
    return { user, created: true };
  } catch (error) {
    if (violatedUniqueConstraint(error) !== 'merchant_users_org_email_key') throw error;
    const winner = await em.findOne(MerchantUserSchema, { organizationId, email });
    if (!winner) throw error;
    return { user: winner, created: false };
  }
}

/**
 * The first owner of a new merchant: an existing user of the organization (e-mail matched
 * case-insensitively) gains a membership, anyone else is provisioned. Either way the membership is
 * pending until the invitation is accepted.
 */
export async function addPendingOwner(
  em: EntityManager,
  input: { organizationId: string; merchantId: string; email: string; name: string | null },
): Promise<PendingMember> {
  return addPendingMember(em, { ...input, role: 'owner', inviterName: null });
}

export interface PendingMember {
  member: MerchantMember;
  user: MerchantUser;
  newUser: boolean;
  invitationToken: string;
}

/**
 * A pending membership with a fresh invitation for `email` (an existing user of the organization gains it, anyone
 * else is provisioned). Someone who is already a member or invited here is a 409 MEMBER_ALREADY_EXISTS.
 */
export async function addPendingMember(
  em: EntityManager,
  input: {
    organizationId: string;
    merchantId: string;
    email: string;
    name: string | null;
    role: MerchantMember['role'];
    inviterName: string | null;
  },
): Promise<PendingMember> {
  const { user, created } = await findOrCreateUser(
    em,
    input.organizationId,
    input.email.trim().toLowerCase(),
    input.name,
  );
  const existing = await em.findOne(MerchantMemberSchema, { merchantId: input.merchantId, userId: user.id });
  if (existing) {
    throw errors.conflict(
      'MEMBER_ALREADY_EXISTS',
      existing.status === 'pending'
        ? 'This person is invited already; resend the invitation instead'
        : 'This person is a member of this merchant already; change their role instead',
      { membership_id: existing.id, status: existing.status },
    );
  }
  const invitation = mintInvitation();
  const member = em.create(MerchantMemberSchema, {
    id: newId('mbr'),
    merchantId: input.merchantId,
    userId: user.id,
    role: input.role,
    status: 'pending',
    invitationTokenHash: invitation.hash,
    invitationExpiresAt: invitation.expiresAt,
    joinedAt: null,
    inviterName: input.inviterName,
  } as MerchantMember);
  try {
    await em.flush();
  } catch (error) {
    // A concurrent invitation of the same person won: the same answer as when it is seen above.
    if (violatedUniqueConstraint(error) !== 'merchant_members_merchant_user_key') throw error;
    throw errors.conflict('MEMBER_ALREADY_EXISTS', 'This person is invited already; resend the invitation instead');
  }
  // Only handed to the mailer; never stored, returned or logged.
  return { member, user, newUser: created, invitationToken: invitation.token };
}

export interface MemberView {
  member: MerchantMember;
  user: MerchantUser;
}

/** A merchant's memberships with their users, newest first. */
export async function listMembers(
  em: EntityManager,
  merchantId: string,
  page: PageRequest,
): Promise<{ items: MemberView[]; total: number }> {
  const [members, total] = await em.findAndCount(
    MerchantMemberSchema,
    { merchantId },
    {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: page.limit,
      offset: offsetOf(page),
    },
  );
  const users = await em.find(MerchantUserSchema, { id: { $in: members.map((member) => member.userId) } });
  const byId = new Map(users.map((user) => [user.id, user]));
  return { items: members.map((member) => ({ member, user: byId.get(member.userId) as MerchantUser })), total };
}
