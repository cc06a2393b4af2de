/** Dashboard people for tests: users of each identity with known passwords, and their sign-ins. */
import jwt from 'jsonwebtoken';
import { expect } from 'chai';
import { hashPassword } from '../../api/modules/auth/passwords.service';
import { audienceOf, type DashboardIdentity } from '../../api/http/dashboard-auth';
import {
  AdminUserSchema,
  MerchantMemberSchema,
  MerchantUserSchema,
  OrganizationMemberSchema,
  OrganizationUserSchema,
  type AdminUser,
  type MerchantMember,
  type MerchantUser,
  type OrganizationMember,
  type OrganizationUser,
} from '../../db/entities';
import { newId } from '../../domain/platform/ids';
import { api } from './http';
import { uniqueEmail } from './factories';
import { stack } from './stack';

export const PASSWORD = 'Correct-Horse-42';
export const NEW_PASSWORD = 'Battery-Staple-77';

let hashed: Promise<string> | undefined;
const passwordHash = () => (hashed ??= hashPassword(PASSWORD));

export async function createMerchantUser(
  organizationId: string,
  merchantIds: string[],
  options: { email?: string; role?: MerchantMember['role']; status?: MerchantMember['status'] } = {},
): Promise<{ id: string; email: string; password: string }> {
  const em = stack().orm.em.fork();
  const email = options.email ?? uniqueEmail('merchant-user');
  const user = em.create(MerchantUserSchema, {
    id: newId('usr'),
    organizationId,
    email,
    name: 'Mia Merchant',
    passwordHash: await passwordHash(),
    lastLoginAt: null,
  } as MerchantUser);
  await em.flush();
  for (const merchantId of merchantIds) {
    em.create(MerchantMemberSchema, {
      id: newId('mbr'),
      merchantId,
      userId: user.id,
      role: options.role ?? 'owner',
      status: options.status ?? 'active',
      invitationTokenHash: null,
      invitationExpiresAt: null,
      joinedAt: new Date(),
      inviterName: null,
    } as MerchantMember);
  }
  await em.flush();
  return { id: user.id, email, password: PASSWORD };
}

export async function createOrganizationUser(
  organizationIds: string[],
  options: { email?: string; role?: OrganizationMember['role'] } = {},
): Promise<{ id: string; email: string; password: string }> {
  const em = stack().orm.em.fork();
  const email = options.email ?? uniqueEmail('org-user');
  const user = em.create(OrganizationUserSchema, {
    id: newId('usr'),
    email,
    name: 'Olga Organization',
    passwordHash: await passwordHash(),
    lastLoginAt: null,
  } as OrganizationUser);
  await em.flush();
  for (const organizationId of organizationIds) {
    em.create(OrganizationMemberSchema, {
      id: newId('omb'),
      organizationId,
      userId: user.id,
      role: options.role ?? 'owner',
      status: 'active',
    } as OrganizationMember);
    await em.flush();
  }
  return { id: user.id, email, password: PASSWORD };
}

export async function createAdminUser(
  options: { email?: string; mustChangePassword?: boolean } = {},
): Promise<{ id: string; email: string; password: string }> {
  const em = stack().orm.em.fork();
  const email = options.email ?? uniqueEmail('admin');
  const user = em.create(AdminUserSchema, {
    id: newId('usr'),
    email,
    name: 'Ada Admin',
    role: 'platform_admin',
    passwordHash: await passwordHash(),
    mustChangePassword: options.mustChangePassword ?? false,
    lastLoginAt: null,
  } as AdminUser);
  await em.flush();
  return { id: user.id, email, password: PASSWORD };
}

const LOGIN_PATH: Record<DashboardIdentity, string> = {
  admin: '/auth/login',
  organization: '/auth/organization/login',
  merchant: '/auth/merchant/login',
};

export async function signIn(
  identity: DashboardIdentity,
  user: { email: string; password: string },
  baseUrl?: string,
): Promise<any> {
  const res = await api.post(LOGIN_PATH[identity], { body: { email: user.email, password: user.password }, baseUrl });
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

/** An access token signed with the stack's key, for claims a login never produces (expired, foreign issuer…). */
export function forgeAccessToken(
  claims: {
    identity: DashboardIdentity;
    userId: string;
    org?: string;
    expiresIn?: number;
    issuer?: string;
    /** The refresh-token family; a token whose family is not live is refused (api/http/dashboard-sessions.ts). */
    sid?: string;
  },
  secret: Buffer = stack().config.dashboard.keys.current.secret,
  options: jwt.SignOptions = {},
): string {
  const { keys, issuer } = stack().config.dashboard;
  return jwt.sign({ sid: claims.sid ?? 'rtf_forged', ...(claims.org ? { org: claims.org } : {}) }, secret, {
    algorithm: 'HS256',
    keyid: keys.current.kid,
    issuer: claims.issuer ?? issuer,
    audience: audienceOf(claims.identity),
    subject: claims.userId,
    expiresIn: claims.expiresIn ?? 900,
    ...options,
  });
}

export const bearer = (token: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  ...extra,
});
