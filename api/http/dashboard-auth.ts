/**
 * Dashboard sessions (people): HS256 access tokens signed with the key named by `kid`, verified with the algorithm,
 * issuer and audience pinned. One audience per Dashboard, so a merchant user's token is refused on an organization
 * endpoint. Dashboard endpoints never accept API keys, and API endpoints never accept these tokens (auth.ts): each
 * way is a 401 that says which credential the endpoint takes.
 */
import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  MerchantMemberSchema,
  MerchantSchema,
  OrganizationMemberSchema,
  type DashboardIdentity,
} from '../../db/entities';
import type { DashboardConfig } from '../../domain/platform/config';
import { errors } from '../../domain/platform/errors';
import { requireActiveMerchant } from './auth';

export type { DashboardIdentity };

export interface DashboardRequirement {
  /** The Dashboards whose tokens the route takes. */
  dashboard: readonly DashboardIdentity[];
  /**
   * merchant: header x-merchant-id naming a merchant the user is an active member of; organization: header
   * x-organization-id naming the organization the token was minted against, where the user is an active member.
   */
  tenant?: 'merchant' | 'organization';
}

export interface DashboardSession {
  identity: DashboardIdentity;
  userId: string;
  /** The refresh-token family the access token was minted in (logout revokes it). */
  sessionId: string;
  /** Organization sessions: the organization the token was minted against. */
  organizationId: string | null;
}

const ALGORITHM = 'HS256';
export const audienceOf = (identity: DashboardIdentity) => `switchyard-dashboard:${identity}`;
const IDENTITY_OF_AUDIENCE = new Map((['admin', 'organization', 'merchant'] as const).map((i) => [audienceOf(i), i]));

interface AccessClaims {
  sub: string;
  aud: string;
  sid: string;
  org?: string;
}

export function signAccessToken(config: DashboardConfig, session: DashboardSession): string {
  const claims: Record<string, string> = { sid: session.sessionId };
  if (session.organizationId) claims.org = session.organizationId;
  return jwt.sign(claims, config.keys.current.secret, {
    algorithm: ALGORITHM,
    keyid: config.keys.current.kid,
    issuer: config.issuer,
    audience: audienceOf(session.identity),
    subject: session.userId,
    expiresIn: config.accessTokenSeconds,
    jwtid: randomUUID(),
  });
}

function bearer(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/** The session an Authorization header carries, if it is a valid access token for one of `identities`. */
export function authenticateDashboard(
  config: DashboardConfig,
  authorization: string | undefined,
  identities: readonly DashboardIdentity[],
): DashboardSession {
  const token = bearer(authorization);
  if (!token) throw errors.unauthenticated('Provide a Dashboard access token as "Authorization: Bearer <token>"');
  if (/^(sk|pk)_/.test(token)) {
    throw errors.unauthenticated(
      'Dashboard endpoints take a Dashboard access token from a login endpoint; API keys are not accepted here',
    );
  }
  const decoded = jwt.decode(token, { complete: true });
  const key = config.keys.accepted.find((candidate) => candidate.kid === decoded?.header.kid);
  if (!decoded || !key) throw errors.unauthenticated('The access token is invalid');
  let claims: AccessClaims;
  try {
    claims = jwt.verify(token, key.secret, {
      algorithms: [ALGORITHM],
      issuer: config.issuer,
      audience: identities.map(audienceOf) as [string, ...string[]],
    }) as unknown as AccessClaims;
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError)
      throw errors.unauthenticated('The access token has expired; refresh it');
    if (error instanceof jwt.JsonWebTokenError && /audience/.test(error.message)) {
      throw errors.unauthenticated(`This endpoint takes a ${identities.join(' or ')} Dashboard token`);
    }
    throw errors.unauthenticated('The access token is invalid');
  }
  const identity = IDENTITY_OF_AUDIENCE.get(claims.aud);
  if (!identity || !claims.sub || !claims.sid) throw errors.unauthenticated('The access token is invalid');
  return { identity, userId: claims.sub, sessionId: claims.sid, organizationId: claims.org ?? null };
}

/** Reads (GET) are open to every role; a change needs an owner or admin: a viewer looks, nothing more. */
export type TenantAccess = 'read' | 'write';

/**
 * The merchant or organization named by the tenant header, checked against the user's active memberships and,
 * for `write` access, the membership's role.
 */
export async function resolveDashboardTenant(
  em: EntityManager,
  session: DashboardSession,
  tenant: 'merchant' | 'organization',
  header: (name: string) => string | undefined,
  access: TenantAccess = 'read',
  options: { anyMerchantStatus?: boolean } = {},
): Promise<string> {
  const name = tenant === 'merchant' ? 'x-merchant-id' : 'x-organization-id';
  const requested = header(name)?.trim();
  if (!requested) throw errors.validation({ [name]: ['is required'] }, `The ${name} header is required`);
  const denied = () => errors.forbidden(`You are not a member of this ${tenant}`);
  const readOnly = () =>
    errors.forbidden(`Your role on this ${tenant} is viewer (read-only); ask an owner or admin to make this change`);
  if (tenant === 'merchant') {
    if (session.identity !== 'merchant') throw denied();
    const member = await em.findOne(MerchantMemberSchema, {
      merchantId: requested,
      userId: session.userId,
      status: 'active',
    });
    if (!member || (await em.count(MerchantSchema, { id: requested })) === 0) throw denied();
    if (access === 'write' && member.role === 'viewer') throw readOnly();
    // A suspended or inactive merchant's Dashboard stays readable; changes wait for its reactivation.
    if (access === 'write' && !options.anyMerchantStatus) await requireActiveMerchant(em, requested);
    return requested;
  }
  if (session.identity !== 'organization') throw denied();
  if (requested !== session.organizationId) {
    throw errors.forbidden('The token is for another organization; switch organization first');
  }
  const member = await em.findOne(OrganizationMemberSchema, {
    organizationId: requested,
    userId: session.userId,
    status: 'active',
  });
  if (!member) throw denied();
  if (access === 'write' && member.role === 'viewer') throw readOnly();
  return requested;
}
