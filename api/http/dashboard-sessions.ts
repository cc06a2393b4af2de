/**
 * A Dashboard access token is only as alive as its session: its `sid` names the refresh-token family it was minted
 * in, and logout, a password change or reset, an organization switch and a detected refresh-token reuse revoke that
 * family. Checking the family on every request makes those end the access tokens too, at once, instead of up to
 * 15 minutes later (RFC 9700 §4.14, ASVS 3.3). "Live" is cached in the auth cache; a revocation NOTIFYs like an
 * API-key change (Migration20261225100000_session_revocation_notifications), so no process keeps a revoked session.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { RefreshTokenSchema } from '../../db/entities';
import { errors } from '../../domain/platform/errors';
import type { AuthCache } from './auth';
import type { DashboardSession } from './dashboard-auth';

export async function requireLiveSession(
  em: EntityManager,
  session: DashboardSession,
  cache?: AuthCache,
): Promise<void> {
  const cacheKey = `session:${session.sessionId}`;
  if (cache?.get<true>(cacheKey)) return;
  const ticket = cache?.ticket() ?? 0;
  const live = await em.count(RefreshTokenSchema, {
    familyId: session.sessionId,
    identity: session.identity,
    userId: session.userId,
    revokedAt: null,
  });
  if (live === 0) throw errors.unauthenticated('This session has ended (signed out or revoked); sign in again');
  cache?.set(cacheKey, true, ticket);
}
