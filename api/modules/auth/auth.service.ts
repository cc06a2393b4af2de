/**
 * Sign-in and passwords for the three Dashboards. Every function takes an EntityManager outside any transaction
 * (routes declare ownTransactions) so throttle counts survive the 401 they lead to, and opens its own transaction
 * for the writes of a success.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OrganizationMemberSchema } from '../../../db/entities';
import type { DashboardConfig } from '../../../domain/platform/config';
import { errors } from '../../../domain/platform/errors';
import type { DashboardIdentity, DashboardSession } from '../../http/dashboard-auth';
import {
  merchantAccounts,
  merchantMemberships,
  normalizeEmail,
  organizationMemberships,
  signInCandidates,
  updateUser,
  type IdentityUser,
  type MerchantAccountView,
  type MerchantMembershipView,
  type OrganizationMembershipView,
} from './identities.service';
import { assertPasswordPolicy, hashPassword, verifyPassword } from './passwords.service';
import { revokeAllSessions, revokeFamily, startSession, type TokenPair } from './sessions.service';
import { isLocked, recordFailure, spendLoginAttempt } from './throttle.service';

// One message for an unknown e-mail, a wrong password and a locked account.
const invalidCredentials = () => errors.unauthenticated('The e-mail or password is incorrect');

/**
 * The accounts `email` + `password` open (several only for merchant users in several organizations), or a 401. With
 * `accountId`, only that account is tried. The IP budget is spent first, and given back when the password proves
 * right; every candidate is verified (a few at most) and an unknown address still costs one argon2 verification, so
 * timing does not tell whether it exists.
 */
async function checkCredentials(
  em: EntityManager,
  config: DashboardConfig,
  identity: DashboardIdentity,
  credentials: { email: string; password: string; ip: string; accountId?: string },
): Promise<[IdentityUser, ...IdentityUser[]]> {
  const attempt = await spendLoginAttempt(em, config, credentials.ip);
  const email = normalizeEmail(credentials.email);
  const locked = await isLocked(em, config, identity, email);
  const candidates = (await signInCandidates(em, identity, email)).filter(
    (candidate) => credentials.accountId === undefined || candidate.id === credentials.accountId,
  );
  const matched: IdentityUser[] = [];
  if (candidates.length === 0) await verifyPassword(null, credentials.password);
  for (const candidate of candidates) {
    if (await verifyPassword(candidate.passwordHash, credentials.password)) matched.push(candidate);
  }
  if (matched.length === 0 || locked) {
    await recordFailure(em, config, identity, email);
    throw invalidCredentials();
  }
  await attempt.refund();
  return matched as [IdentityUser, ...IdentityUser[]];
}

export interface MerchantLogin extends TokenPair {
  user: { id: string; email: string; name: string | null; merchants: MerchantMembershipView[]; last_login_at: string };
}

/** Several accounts open with this e-mail and password: no session yet, the person picks one (account_id). */
export interface MerchantAccountChoice {
  choose_account: MerchantAccountView[];
}

/**
 * A merchant user signs in to the one account the password opens, or to `account_id`; when it opens several and
 * none is named, the answer lists them to choose from instead of picking one for the person.
 */
export async function loginMerchant(
  em: EntityManager,
  config: DashboardConfig,
  input: { email: string; password: string; ip: string; account_id?: string },
): Promise<MerchantLogin | MerchantAccountChoice> {
  const accounts = await checkCredentials(em, config, 'merchant', { ...input, accountId: input.account_id });
  if (accounts.length > 1) return { choose_account: await merchantAccounts(em, accounts) };
  const [user] = accounts;
  const now = new Date();
  return em.transactional(async (tx) => {
    await updateUser(tx, 'merchant', user.id, { lastLoginAt: now });
    const pair = startSession(tx, config, { identity: 'merchant', userId: user.id, organizationId: null });
    await tx.flush();
    const merchants = await merchantMemberships(tx, user.id);
    return {
      user: { id: user.id, email: user.email, name: user.name, merchants, last_login_at: now.toISOString() },
      ...pair,
    };
  });
}

export interface OrganizationLogin extends TokenPair {
  user: { id: string; email: string; name: string | null; last_login_at: string };
  organization_id: string;
  memberships: OrganizationMembershipView[];
}

export async function loginOrganization(
  em: EntityManager,
  config: DashboardConfig,
  input: { email: string; password: string; ip: string },
): Promise<OrganizationLogin> {
  const [user] = await checkCredentials(em, config, 'organization', input);
  const memberships = await organizationMemberships(em, user.id);
  // Someone with no organization left has nothing to sign in to; same answer as a wrong password.
  if (memberships.length === 0) throw invalidCredentials();
  const now = new Date();
  const organizationId = memberships[0].organization_id;
  return em.transactional(async (tx) => {
    await updateUser(tx, 'organization', user.id, { lastLoginAt: now });
    const pair = startSession(tx, config, { identity: 'organization', userId: user.id, organizationId });
    await tx.flush();
    return {
      user: { id: user.id, email: user.email, name: user.name, last_login_at: now.toISOString() },
      organization_id: organizationId,
      memberships,
      ...pair,
    };
  });
}

export interface AdminLogin extends Partial<TokenPair> {
  user: { id: string; email: string; name: string | null; role: string; last_login_at: string | null };
  must_change_password: boolean;
}

/** A temporary password signs in to nothing: the answer says to change it first, and carries no tokens. */
export async function loginAdmin(
  em: EntityManager,
  config: DashboardConfig,
  input: { email: string; password: string; ip: string },
): Promise<AdminLogin> {
  const [user] = await checkCredentials(em, config, 'admin', input);
  const view = { id: user.id, email: user.email, name: user.name, role: user.role ?? 'support' };
  if (user.mustChangePassword) {
    return { user: { ...view, last_login_at: user.lastLoginAt?.toISOString() ?? null }, must_change_password: true };
  }
  const now = new Date();
  return em.transactional(async (tx) => {
    await updateUser(tx, 'admin', user.id, { lastLoginAt: now });
    const pair = startSession(tx, config, { identity: 'admin', userId: user.id, organizationId: null });
    await tx.flush();
    return { user: { ...view, last_login_at: now.toISOString() }, must_change_password: false, ...pair };
  });
}

/**
 * Change-password by credentials (the spec's body: email, current_password, new_password), throttled like a
 * login. Every session of the account is revoked: a changed password signs out every device.
 */
export async function changePassword(
  em: EntityManager,
  config: DashboardConfig,
  identity: DashboardIdentity,
  input: { email: string; current_password: string; new_password: string; ip: string },
): Promise<IdentityUser> {
  assertPasswordPolicy(input.new_password, 'new_password');
  if (input.new_password === input.current_password) {
    throw errors.validation({ new_password: ['must differ from the current password'] });
  }
  const [user] = await checkCredentials(em, config, identity, {
    email: input.email,
    password: input.current_password,
    ip: input.ip,
  });
  const passwordHash = await hashPassword(input.new_password);
  await em.transactional(async (tx) => {
    await updateUser(tx, identity, user.id, {
      passwordHash,
      ...(identity === 'admin' ? { mustChangePassword: false } : {}),
    });
    await revokeAllSessions(tx, identity, user.id);
  });
  return user;
}

export async function logout(em: EntityManager, session: DashboardSession): Promise<void> {
  await revokeFamily(em, session.sessionId);
}

/** Re-mints the pair against another organization; the current session ends. */
export async function switchOrganization(
  em: EntityManager,
  config: DashboardConfig,
  session: DashboardSession,
  organizationId: string,
): Promise<TokenPair & { organization_id: string }> {
  const member = await em.count(OrganizationMemberSchema, {
    organizationId,
    userId: session.userId,
    status: 'active',
  });
  if (member === 0) throw errors.forbidden('You are not a member of this organization');
  return em.transactional(async (tx) => {
    await revokeFamily(tx, session.sessionId);
    const pair = startSession(tx, config, { identity: 'organization', userId: session.userId, organizationId });
    await tx.flush();
    return { ...pair, organization_id: organizationId };
  });
}
