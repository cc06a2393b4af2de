import { EntitySchema } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps';

/** A merchant Dashboard identity; unique by e-mail within the organization. */
export interface MerchantUser {
  id: string;
  organizationId: string;
  email: string;
  name: string | null;
  /** Set when the invitation is accepted; null until then. */
  passwordHash: string | null;
  lastLoginAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const MerchantUserSchema = new EntitySchema<MerchantUser>({
  name: 'MerchantUser',
  tableName: 'merchant_users',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string', nullable: true },
    passwordHash: { type: 'string', nullable: true, hidden: true },
    lastLoginAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt,
    updatedAt,
  },
});

export const MEMBER_ROLES = ['owner', 'admin', 'viewer'] as const;

export interface MerchantMember {
  id: string;
  merchantId: string;
  userId: string;
  role: (typeof MEMBER_ROLES)[number];
  /** pending until the invitation is accepted. */
  status: 'pending' | 'active';
  /** SHA-256 of the invitation token. */
  invitationTokenHash: string | null;
  invitationExpiresAt: Date | null;
  joinedAt: Date | null;
  /** Shown on the invitation ("who sent it"); null when the system sent it. */
  inviterName: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const MerchantMemberSchema = new EntitySchema<MerchantMember>({
  name: 'MerchantMember',
  tableName: 'merchant_members',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    userId: { type: 'string' },
    role: { type: 'string' },
    status: { type: 'string' },
    invitationTokenHash: { type: 'string', nullable: true, hidden: true },
    invitationExpiresAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    joinedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    inviterName: { type: 'string', nullable: true },
    createdAt,
    updatedAt,
  },
});
