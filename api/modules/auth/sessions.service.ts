/**
 * Dashboard sessions: a login starts a refresh-token family; every refresh rotates the presented token (it is
 * marked rotated and the next one joins the family). Presenting a rotated token again means it leaked: the whole
 * family is revoked (RFC 9700 §4.14.2) and whoever holds the newest token is signed out too. Only SHA-256 hashes
 * of refresh tokens are stored. Access tokens are not stored; they expire on their own (about 15 minutes).
 */
import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OrganizationMemberSchema, RefreshTokenSchema, type RefreshToken } from '../../../db/entities';
import type { DashboardConfig } from '../../../domain/platform/config';
import { hashSecret } from '../../../domain/platform/crypto';
import { errors } from '../../../domain/platform/errors';
import { newId } from '../../../domain/platform/ids';
import { signAccessToken, type DashboardIdentity } from '../../http/dashboard-auth';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

interface SessionSubject {
  identity: DashboardIdentity;
  userId: string;
  organizationId: string | null;
}

const newRefreshToken = () => `rt_${randomBytes(32).toString('base64url')}`;

function issue(
  em: EntityManager,
  config: DashboardConfig,
  subject: SessionSubject,
  family: { id: string; expiresAt: Date },
): TokenPair {
  const token = newRefreshToken();
  const now = Date.now();
  em.create(RefreshTokenSchema, {
    id: newId('rtk'),
    familyId: family.id,
    identity: subject.identity,
    userId: subject.userId,
    organizationId: subject.organizationId,
    tokenHash: hashSecret(token),
    // A token never outlives its family.
    expiresAt: new Date(Math.min(now + config.refreshTokenSeconds * 1000, family.expiresAt.getTime())),
    familyExpiresAt: family.expiresAt,
    rotatedAt: null,
    revokedAt: null,
  } as RefreshToken);
  return {
    access_token: signAccessToken(config, { ...subject, sessionId: family.id }),
    refresh_token: token,
    token_type: 'Bearer',
    expires_in: config.accessTokenSeconds,
  };
}

/** A new family (login, organization switch). The caller flushes. */
export function startSession(em: EntityManager, config: DashboardConfig, subject: SessionSubject): TokenPair {
  const family = { id: newId('rtf'), expiresAt: new Date(Date.now() + config.refreshFamilySeconds * 1000) };
  return issue(em, config, subject, family);
}

export async function revokeFamily(em: EntityManager, familyId: string): Promise<void> {
  await em.nativeUpdate(RefreshTokenSchema, { familyId, revokedAt: null }, { revokedAt: new Date() });
}

/** Every session of the user (password change or reset). */
export async function revokeAllSessions(em: EntityManager, identity: DashboardIdentity, userId: string): Promise<void> {
  await em.nativeUpdate(RefreshTokenSchema, { identity, userId, revokedAt: null }, { revokedAt: new Date() });
}

const invalidRefresh = () => errors.unauthenticated('The refresh token is invalid, expired or revoked');

/**
 * Rotates `presented`. `em` must not be in a transaction: a reuse is revoked in a transaction of its own that
 * commits before the 401 is thrown.
 */
export async function refreshSession(
  em: EntityManager,
  config: DashboardConfig,
  presented: string,
): Promise<TokenPair> {
  const outcome = await em.transactional(async (tx) => {
    const row = await tx.findOne(
      RefreshTokenSchema,
      { tokenHash: hashSecret(presented) },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!row || row.revokedAt) return { kind: 'invalid' as const };
    if (row.rotatedAt) {
      await revokeFamily(tx, row.familyId);
      return { kind: 'reused' as const };
    }
    if (row.expiresAt.getTime() <= Date.now()) return { kind: 'invalid' as const };
    if (row.identity === 'organization' && row.organizationId) {
      const member = await tx.count(OrganizationMemberSchema, {
        organizationId: row.organizationId,
        userId: row.userId,
        status: 'active',
      });
      if (member === 0) {
        await revokeFamily(tx, row.familyId);
        return { kind: 'invalid' as const };
      }
    }
    row.rotatedAt = new Date();
    const pair = issue(
      tx,
      config,
      { identity: row.identity, userId: row.userId, organizationId: row.organizationId },
      { id: row.familyId, expiresAt: row.familyExpiresAt },
    );
    await tx.flush();
    return { kind: 'rotated' as const, pair };
  });
  if (outcome.kind !== 'rotated') throw invalidRefresh();
  return outcome.pair;
}
