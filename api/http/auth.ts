/**
 * API-key authentication (401) and authorization (403) of Document 1.
 *
 * Keys look like sk_live_mer_<32 base62>; only their SHA-256 is stored. The lookup is by hash and the
 * final comparison is constant-time, so response timing says nothing about how much of a guess matched.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyKind } from '../../db/entities';
import { activeKeyByHash } from '../../db/repositories/api-keys.repository';
import { organizationMerchantStatus } from '../../db/repositories/merchants.repository';
import { constantTimeEqual, hashSecret } from '../../domain/platform/crypto';
import { KEY_PATTERN, type KeyLevel } from '../../domain/api-keys/api-keys.service';
import { ApiError, errors } from '../../domain/platform/errors';
import { looksLikeJwt } from './dashboard-auth';
import type { Scope } from '../../domain/api-keys/api-keys.scopes';
import type { AuthCache } from './auth-cache';
import { cacheMerchantStatus } from './merchant-status';

export type { KeyLevel };

export interface ApiKeyAuth {
  keyId: string;
  organizationId: string;
  /** Set for merchant keys: the one merchant the key may act on. */
  merchantId: string | null;
  level: KeyLevel;
  kind: ApiKeyKind;
  scopes: ReadonlySet<string>;
  /** Epoch ms after which the key is refused (a rolled key's overlap), checked on cache hits too; null = never. */
  expiresAt: number | null;
}

export interface AuthRequirement {
  /** Which secret-key levels may call the route. */
  keys: readonly KeyLevel[];
  scopes: readonly Scope[];
  /** Whether the route acts on one merchant (resolved from the key, path, query or body). Default true. */
  merchantScoped?: boolean;
  /** Browser endpoints: a public key in X-Public-Key, and only that (secret keys are refused there). */
  publicKey?: boolean;
}

/** A well-formed key that matches no active key (the miss that cost a lookup; key-guesses.ts counts these). */
export class UnknownApiKeyError extends ApiError {
  constructor() {
    super(401, 'authentication_error', 'INVALID_CREDENTIALS', 'The API key is invalid or revoked');
  }
}

function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

export async function authenticateApiKey(
  em: EntityManager,
  authorization: string | undefined,
  cache?: AuthCache,
): Promise<ApiKeyAuth> {
  const token = bearerToken(authorization);
  if (!token) throw errors.unauthenticated('Provide an API key as "Authorization: Bearer <key>"');
  if (looksLikeJwt(token)) {
    throw errors.unauthenticated(
      'This endpoint takes an API key; Dashboard access tokens are only accepted on Dashboard endpoints',
    );
  }
  return lookupKey(em, token, cache);
}

/**
 * Browser endpoints read the key from X-Public-Key. Without that header, a secret key sent the usual way is
 * still identified so it can be refused with 403 (like any valid key used in the wrong place) rather than 401.
 */
export async function authenticatePublicKey(
  em: EntityManager,
  publicKey: string | undefined,
  authorization: string | undefined,
  cache?: AuthCache,
): Promise<ApiKeyAuth> {
  if (publicKey) return lookupKey(em, publicKey.trim(), cache);
  const bearer = bearerToken(authorization);
  if (bearer && KEY_PATTERN.test(bearer)) {
    const auth = await lookupKey(em, bearer, cache);
    // A secret key goes on to authorize(), which refuses it with 403; a public key must use its own header.
    if (auth.kind === 'secret') return auth;
  }
  throw errors.unauthenticated('Provide a public key as "X-Public-Key: pk_live_…"');
}

/**
 * Active keys are cached by the SHA-256 of the whole key, and so are hashes that matched no active key (unknown and
 * revoked keys), apart (auth-cache.ts). A miss is one statement (db/repositories/api-keys.repository.ts): the key,
 * its merchant's status, cached with it, and last_used_at for the key management API (at most once a minute per
 * key; the auth-change trigger ignores that column).
 */
async function lookupKey(em: EntityManager, token: string, cache?: AuthCache): Promise<ApiKeyAuth> {
  if (!KEY_PATTERN.test(token)) throw errors.unauthenticated('The API key is malformed');
  const hash = hashSecret(token);
  const cacheKey = `key:${hash}`;
  const cached = cache?.get<ApiKeyAuth>(cacheKey);
  if (cached && (cached.expiresAt === null || cached.expiresAt > Date.now())) return cached;
  if (cache?.isUnknownKey(hash)) throw new UnknownApiKeyError();
  const ticket = cache?.ticket() ?? 0;
  const key = await activeKeyByHash(em, hash, new Date());
  if (!key || !constantTimeEqual(key.secretHash, hash)) {
    cache?.rememberUnknownKey(hash, ticket);
    throw new UnknownApiKeyError();
  }
  const auth: ApiKeyAuth = {
    keyId: key.id,
    organizationId: key.organizationId,
    merchantId: key.merchantId,
    level: key.merchantId ? 'merchant' : 'organization',
    kind: key.kind,
    scopes: new Set(key.scopes),
    expiresAt: key.expiresAt?.getTime() ?? null,
  };
  if (cache) {
    cache.set(cacheKey, auth, ticket);
    if (key.merchantId && key.merchantStatus) cacheMerchantStatus(cache, key.merchantId, key.merchantStatus, ticket);
  }
  return auth;
}

/** Key kind and scopes: a valid key that may not call this route gets 403. */
export function authorize(auth: ApiKeyAuth, requirement: AuthRequirement): void {
  if (requirement.publicKey) {
    if (auth.kind !== 'public')
      throw errors.forbidden(
        'This browser endpoint takes a public key in X-Public-Key; secret keys must never reach a browser',
      );
  } else if (auth.kind !== 'secret') {
    throw errors.forbidden('Public keys may only be used on the browser-session endpoints');
  }
  if (!requirement.keys.includes(auth.level)) {
    throw errors.forbidden(`This endpoint requires ${requirement.keys.map((level) => `a ${level} key`).join(' or ')}`);
  }
  const missing = requirement.scopes.filter((scope) => !auth.scopes.has(scope));
  if (missing.length > 0) throw errors.forbidden(`The API key lacks the required scope: ${missing.join(', ')}`);
}

/**
 * The merchant a merchant-scoped request acts on. A merchant key carries it (and may not name another);
 * an organization key must name one of its organization's merchants, in the path, query or body.
 */
export async function resolveMerchant(
  em: EntityManager,
  auth: ApiKeyAuth,
  requested: string | undefined,
  cache?: AuthCache,
): Promise<string> {
  if (auth.merchantId) {
    if (requested !== undefined && requested !== auth.merchantId) {
      throw errors.forbidden('The API key does not have access to this merchant');
    }
    return auth.merchantId;
  }
  if (requested === undefined) {
    throw errors.forbidden('Organization keys must name the merchant with merchant_id');
  }
  const cacheKey = `merchant:${auth.organizationId}:${requested}`;
  if (cache?.get<true>(cacheKey)) return requested;
  const ticket = cache?.ticket() ?? 0;
  // Ownership and status in one read: a write goes on to check the status, which is then cached.
  const status = await organizationMerchantStatus(em, auth.organizationId, requested);
  if (status === null) throw errors.forbidden('The API key does not have access to this merchant');
  if (cache) {
    cache.set(cacheKey, true, ticket);
    cacheMerchantStatus(cache, requested, status, ticket);
  }
  return requested;
}
