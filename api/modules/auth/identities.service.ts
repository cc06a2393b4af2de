/**
 * The three Dashboard identities behind one interface: platform admins, organization users, merchant users. Each
 * lives in its own table, so the same e-mail can be three independent people with three passwords.
 *
 * Merchant users are unique by e-mail within an organization, so one address may have accounts in several
 * organizations: sign-in checks the password against each (a few at most); when it opens several, the person
 * chooses the account (docs/api-decisions.md).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  AdminUserSchema,
  MerchantMemberSchema,
  MerchantSchema,
  MerchantUserSchema,
  OrganizationMemberSchema,
  OrganizationSchema,
  OrganizationUserSchema,
  type DashboardIdentity,
} from '../../../db/entities';

export interface IdentityUser {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string | null;
  lastLoginAt: Date | null;
  /** Admin identity only. */
  mustChangePassword?: boolean;
  role?: string;
}

const MAX_ACCOUNTS_PER_EMAIL = 5;

function schemaOf(identity: DashboardIdentity) {
  if (identity === 'admin') return AdminUserSchema;
  return identity === 'organization' ? OrganizationUserSchema : MerchantUserSchema;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Accounts of this identity with this e-mail that can sign in (a password is set), most recently used first. */
export async function signInCandidates(
  em: EntityManager,
  identity: DashboardIdentity,
  email: string,
): Promise<IdentityUser[]> {
  const schema = schemaOf(identity) as typeof MerchantUserSchema;
  return await em.find(
    schema,
    { email: normalizeEmail(email), passwordHash: { $ne: null } },
    { orderBy: { lastLoginAt: 'desc nulls last', createdAt: 'asc' } as never, limit: MAX_ACCOUNTS_PER_EMAIL },
  );
}

export async function findUser(
  em: EntityManager,
  identity: DashboardIdentity,
  id: string,
): Promise<IdentityUser | null> {
  const schema = schemaOf(identity) as typeof MerchantUserSchema;
  return await em.findOne(schema, { id });
}

/** Applies `changes` to the user row (password, last login, temporary-password flag). */
export async function updateUser(
  em: EntityManager,
  identity: DashboardIdentity,
  id: string,
  changes: Partial<Pick<IdentityUser, 'passwordHash' | 'lastLoginAt' | 'mustChangePassword' | 'name'>>,
): Promise<void> {
  const schema = schemaOf(identity) as typeof MerchantUserSchema;
  const user = await em.findOneOrFail(schema, { id });
  em.assign(user, changes as never);
  await em.flush();
}

export interface MerchantMembershipView {
  membership_id: string;
  merchant_id: string;
  merchant_name: string;
  status: string;
  role: string;
  organization_id: string;
  organization_name: string;
}

export async function merchantMemberships(em: EntityManager, userId: string): Promise<MerchantMembershipView[]> {
  const members = await em.find(MerchantMemberSchema, { userId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const merchants = await em.find(MerchantSchema, { id: { $in: members.map((member) => member.merchantId) } });
  const organizations = await em.find(OrganizationSchema, {
    id: { $in: [...new Set(merchants.map((merchant) => merchant.organizationId))] },
  });
  const merchantById = new Map(merchants.map((merchant) => [merchant.id, merchant]));
  const orgName = new Map(organizations.map((organization) => [organization.id, organization.name]));
  return members.flatMap((member) => {
    const merchant = merchantById.get(member.merchantId);
    if (!merchant) return [];
    return [
      {
        membership_id: member.id,
        merchant_id: merchant.id,
        merchant_name: merchant.name,
        status: member.status,
        role: member.role,
        organization_id: merchant.organizationId,
        organization_name: orgName.get(merchant.organizationId) ?? '',
      },
    ];
  });
}

/** One merchant-user account to choose at sign-in: its organization and the merchants it is an active member of. */
export interface MerchantAccountView {
  account_id: string;
  organization_id: string;
  organization_name: string;
  merchants: { merchant_id: string; merchant_name: string }[];
}

export async function merchantAccounts(em: EntityManager, users: IdentityUser[]): Promise<MerchantAccountView[]> {
  const accounts = await em.find(MerchantUserSchema, { id: { $in: users.map((user) => user.id) } });
  const organizations = await em.find(OrganizationSchema, {
    id: { $in: [...new Set(accounts.map((account) => account.organizationId))] },
  });
  const orgName = new Map(organizations.map((organization) => [organization.id, organization.name]));
  return Promise.all(
    accounts.map(async (account) => ({
      account_id: account.id,
      organization_id: account.organizationId,
      organization_name: orgName.get(account.organizationId) ?? '',
      merchants: (await merchantMemberships(em, account.id))
        .filter((membership) => membership.status === 'active')
        .map(({ merchant_id, merchant_name }) => ({ merchant_id, merchant_name })),
    })),
  );
}

export interface OrganizationMembershipView {
  membership_id: string;
  organization_id: string;
  organization_name: string;
  role: string;
}

/** The user's active organization memberships, oldest first (the first is where a login lands). */
export async function organizationMemberships(
  em: EntityManager,
  userId: string,
): Promise<OrganizationMembershipView[]> {
  const members = await em.find(
    OrganizationMemberSchema,
    { userId, status: 'active' },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  const organizations = await em.find(OrganizationSchema, { id: { $in: members.map((m) => m.organizationId) } });
  const name = new Map(organizations.map((organization) => [organization.id, organization.name]));
  return members.map((member) => ({
    membership_id: member.id,
    organization_id: member.organizationId,
    organization_name: name.get(member.organizationId) ?? '',
    role: member.role,
  }));
}
