import { EntitySchema } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps';

/** The three Dashboard identities; the same e-mail may be an independent user in each. */
export type DashboardIdentity = 'admin' | 'organization' | 'merchant';

/** A platform user (super admin, platform admin, support). */
export interface AdminUser {
  id: string;
  email: string;
  name: string | null;
  role: 'super_admin' | 'platform_admin' | 'support';
  passwordHash: string | null;
  /** A temporary password: login hands out no tokens until it is changed. */
  mustChangePassword: boolean;
  lastLoginAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const AdminUserSchema = new EntitySchema<AdminUser>({
  name: 'AdminUser',
  tableName: 'admin_users',
  properties: {
    id: { type: 'string', primary: true },
    email: { type: 'string' },
    name: { type: 'string', nullable: true },
    role: { type: 'string' },
    passwordHash: { type: 'string', nullable: true, hidden: true },
    mustChangePassword: { type: 'boolean' },
    lastLoginAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt,
    updatedAt,
  },
});

/** An organization Dashboard user; unique by e-mail, member of one or more organizations. */
export interface OrganizationUser {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string | null;
  lastLoginAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const OrganizationUserSchema = new EntitySchema<OrganizationUser>({
  name: 'OrganizationUser',
  tableName: 'organization_users',
  properties: {
    id: { type: 'string', primary: true },
    email: { type: 'string' },
    name: { type: 'string', nullable: true },
    passwordHash: { type: 'string', nullable: true, hidden: true },
    lastLoginAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt,
    updatedAt,
  },
});

export interface OrganizationMember {
  id: string;
  organizationId: string;
  userId: string;
  role: 'owner' | 'admin' | 'viewer';
  status: 'pending' | 'active';
  createdAt: Date;
  updatedAt: Date;
}

export const OrganizationMemberSchema = new EntitySchema<OrganizationMember>({
  name: 'OrganizationMember',
  tableName: 'organization_members',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    userId: { type: 'string' },
    role: { type: 'string' },
    status: { type: 'string' },
    createdAt,
    updatedAt,
  },
});

/** One refresh token of a session family (only its SHA-256 is stored). */
export interface RefreshToken {
  id: string;
  familyId: string;
  identity: DashboardIdentity;
  userId: string;
  /** Organization sessions: the organization the session is minted against. */
  organizationId: string | null;
  tokenHash: string;
  expiresAt: Date;
  familyExpiresAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export const RefreshTokenSchema = new EntitySchema<RefreshToken>({
  name: 'RefreshToken',
  tableName: 'refresh_tokens',
  properties: {
    id: { type: 'string', primary: true },
    familyId: { type: 'string' },
    identity: { type: 'string' },
    userId: { type: 'string' },
    organizationId: { type: 'string', nullable: true },
    tokenHash: { type: 'string', hidden: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)' },
    familyExpiresAt: { type: 'Date', columnType: 'timestamptz(3)' },
    rotatedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    revokedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt,
  },
});

export interface PasswordResetToken {
  id: string;
  identity: DashboardIdentity;
  userId: string;
  tokenHash: string;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

export const PasswordResetTokenSchema = new EntitySchema<PasswordResetToken>({
  name: 'PasswordResetToken',
  tableName: 'password_reset_tokens',
  properties: {
    id: { type: 'string', primary: true },
    identity: { type: 'string' },
    userId: { type: 'string' },
    tokenHash: { type: 'string', hidden: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)' },
    usedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt,
  },
});
