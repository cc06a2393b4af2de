/**
 * API-key authentication (401) and authorization (403) of Document 1.
 *
 * Keys look like sk_live_mer_<32 base62>; only their SHA-256 is stored. The lookup is by hash and the
 * final comparison is constant-time, so response timing says nothing about how much of a guess matched.
 * Below them, the two checks every key request meets next: the merchant's status and the budget of unknown-key
 * guesses per client address.
 */

import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantSchema, type ApiKeyKind, type MerchantStatus } from '../../db/entities';
import { activeKeyByHash } from '../../db/repositories/api-keys.repository';
import { organizationMerchantStatus } from '../../db/repositories/merchants.repository';
import { constantTimeEqual, hashSecret } from '../../domain/platform/crypto';
import { KEY_PATTERN, type KeyLevel } from '../../domain/api-keys/api-keys.service';
import { ApiError, errors } from '../../domain/platform/errors';
import type { Scope } from '../../domain/api-keys/api-keys.scopes';
import type { AppDeps } from '../deps';
import type { AuthCache } from './auth-cache';

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

/** A well-formed key that matches no active key (the miss that cost a lookup; KeyGuessLimiter below counts these). */
export class UnknownApiKeyError extends ApiError {
  constructor() {
    super(401, 'authentication_error', 'INVALID_CREDENTIALS', 'The API key is invalid or revoked');
  }
}

/**
 * The malformed-key 401 names the accepted prefixes so a key from another product (sk_test_…) is recognised as such;
 * it never repeats the key. Test or live is a connector setting, not a key prefix.
 */
const MALFORMED_KEY =
  'The API key is malformed: Switchyard keys start with sk_live_mer_ (merchant secret), pk_live_mer_ (merchant ' +
  'public) or sk_live_org_ (organization secret), then 32 letters and digits; there are no sk_test_ keys ' +
  '(test mode is a connector setting)';

function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** A Dashboard token presented to an API-key endpoint: recognisable, so the 401 can say what went wrong. */
export function looksLikeJwt(token: string): boolean {
  return /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/.test(token);
}

/** `em`: the request's EntityManager, asked for only when the key is not in the cache. */
export async function authenticateApiKey(
  em: () => EntityManager,
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
  em: () => EntityManager,
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
async function lookupKey(em: () => EntityManager, token: string, cache?: AuthCache): Promise<ApiKeyAuth> {
  if (!KEY_PATTERN.test(token)) throw errors.unauthenticated(MALFORMED_KEY);
  const hash = hashSecret(token);
  const cacheKey = `key:${hash}`;
  const cached = cache?.get<ApiKeyAuth>(cacheKey);
  if (cached && (cached.expiresAt === null || cached.expiresAt > Date.now())) return cached;
  if (cache?.isUnknownKey(hash)) throw new UnknownApiKeyError();
  const ticket = cache?.ticket() ?? 0;
  const key = await activeKeyByHash(em(), hash, new Date());
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
  em: () => EntityManager,
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
  const status = await organizationMerchantStatus(em(), auth.organizationId, requested);
  if (status === null) throw errors.forbidden('The API key does not have access to this merchant');
  if (cache) {
    cache.set(cacheKey, true, ticket);
    cacheMerchantStatus(cache, requested, status, ticket);
  }
  return requested;
}

/*
 * Merchant status (Document 3: active; inactive = deactivated, records kept; suspended = temporarily blocked) is
 * enforced where money can move: a non-active merchant's public key is refused outright (browser sessions, card
 * tokens, hosted checkout), and its secret-key and Dashboard writes are refused, while reads stay open so the
 * merchant can still reconcile. The organization manages the merchant (PATCH /merchants/:id reactivates it) through
 * routes that are not merchant-scoped, so they are untouched. Webhook deliveries run in the worker and go on.
 *
 * The status is cached with the API keys: the merchants NOTIFY trigger empties the cache on every change, so a
 * suspension takes effect at once in every API process.
 */
const REFUSALS: Record<Exclude<MerchantStatus, 'active'>, { code: string; message: string }> = {
  suspended: {
    code: 'MERCHANT_SUSPENDED',
    message:
      'This merchant is suspended: it cannot take payments or make changes until its organization reactivates it',
  },
  inactive: {
    code: 'MERCHANT_INACTIVE',
    message: 'This merchant is inactive: it cannot take payments or make changes until its organization reactivates it',
  },
};

const statusKey = (merchantId: string) => `merchant-status:${merchantId}`;

/**
 * Caches a status read with something else (a merchant key with its merchant, an organization key's merchant with
 * its ownership), so the request that read it sends no second statement. `ticket` is the one taken before that read.
 */
export function cacheMerchantStatus(cache: AuthCache, merchantId: string, status: MerchantStatus, ticket: number) {
  cache.set(statusKey(merchantId), status, ticket);
}

/** `em`: an EntityManager, or the request's forked on first use (a cached status needs none). */
type LazyEm = EntityManager | (() => EntityManager);

export async function merchantStatus(
  em: LazyEm,
  merchantId: string,
  cache?: AuthCache,
): Promise<MerchantStatus | undefined> {
  const cached = cache?.get<MerchantStatus>(statusKey(merchantId));
  if (cached) return cached;
  const ticket = cache?.ticket() ?? 0;
  const reader = typeof em === 'function' ? em() : em;
  const merchant = await reader.findOne(MerchantSchema, { id: merchantId }, { fields: ['status'] });
  if (!merchant) return undefined;
  if (cache) cacheMerchantStatus(cache, merchantId, merchant.status, ticket);
  return merchant.status;
}

/** 403 MERCHANT_SUSPENDED or MERCHANT_INACTIVE unless the merchant is active. */
export async function requireActiveMerchant(em: LazyEm, merchantId: string, cache?: AuthCache): Promise<void> {
  const status = await merchantStatus(em, merchantId, cache);
  if (status === undefined || status === 'active') return;
  const refusal = REFUSALS[status];
  throw new ApiError(403, 'authorization_error', refusal.code, refusal.message, { merchant_status: status });
}

/*
 * Unknown API keys are cheap to refuse. A well-formed key that matches nothing costs an indexed SELECT and a pooled
 * connection (once: the auth cache remembers it as unknown for a few seconds), so each client address (IPv6 per /64)
 * gets UNKNOWN_API_KEYS_PER_IP misses per minute; past that, its keys that match nothing get 429 instead of 401 until
 * the window ends. Only a miss spends or meets the budget: a valid key is answered from the auth cache or its lookup
 * before the budget is ever consulted, so a guesser cannot lock out the clients that share its address (CGNAT, an
 * office NAT, or everyone behind a proxy that is not in TRUSTED_PROXIES). Counted in process memory, not in
 * PostgreSQL: a database write per refusal is the cost this avoids (so with N API processes the bound is N times).
 */
const WINDOW_MS = 60_000;
const MAX_TRACKED = 10_000;

export class KeyGuessLimiter {
  private readonly windows = new Map<string, { start: number; misses: number }>();

  constructor(
    private readonly limit: number,
    private readonly message = 'Too many unknown API keys from this address; try again later',
  ) {}

  /**
   * Counts one miss for this address (or whatever the limiter counts by); 429 instead when it has already missed
   * `limit` times in its current window. Call it only for a request already known to be refused.
   */
  spend(address: string, now = Date.now()): void {
    const window = this.windows.get(address);
    if (window && now - window.start < WINDOW_MS) {
      if (window.misses >= this.limit) {
        const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
        throw errors.rateLimited(retryAfter, this.message);
      }
      window.misses += 1;
      return;
    }
    this.windows.delete(address);
    // Maps iterate in insertion order: the first entry is the oldest window.
    while (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value as string);
    this.windows.set(address, { start: now, misses: 1 });
  }
}

const limiters = new WeakMap<AppDeps, KeyGuessLimiter>();

/** One limiter per app (AppDeps), made on first use, so nothing that builds AppDeps has to know about it. */
export function keyGuessesOf(deps: AppDeps): KeyGuessLimiter {
  let limiter = limiters.get(deps);
  if (!limiter) limiters.set(deps, (limiter = new KeyGuessLimiter(deps.config.rateLimit.unknownKeysPerIp)));
  return limiter;
}
