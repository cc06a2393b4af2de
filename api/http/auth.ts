/**
 * API-key authentication (401) and authorization (403) of Document 1.
 *
 * Keys look like sk_live_mer_<32 base62>; only their SHA-256 is stored. The lookup is by hash and the
 * final comparison is constant-time, so response timing says nothing about how much of a guess matched.
 * Below them, the check every key request meets next (the merchant's status), and the in-process cache both the key
 * lookup and that check read through (AuthCache).
 */

import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantSchema, type ApiKeyKind, type MerchantStatus } from '../../db/entities';
import { activeKeyByHash } from '../../db/repositories/api-keys.repository';
import { organizationMerchantStatus } from '../../db/repositories/merchants.repository';
import { constantTimeEqual, hashSecret } from '../../domain/platform/crypto';
import { ApiError, errors } from '../../domain/platform/errors';
import type { KeyLevel, Scope } from '../../domain/api-keys/api-keys.scopes';
import type { Orm } from '../../db/orm';
import { listen, type Listener } from '../../db/listen';

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

/** A well-formed key that matches no active key (the miss that cost a lookup; refusal-budgets.ts counts these). */
export class UnknownApiKeyError extends ApiError {
  constructor() {
    super(401, 'authentication_error', 'INVALID_CREDENTIALS', 'The API key is invalid or revoked');
  }
}

/** sk_live_mer_<32 base62>: kind, level, then the random part (as generateApiKey, domain/api-keys, issues them). */
export const KEY_PATTERN = /^(sk|pk)_live_(org|mer)_[0-9A-Za-z]{32}$/;

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
 * revoked keys), apart (AuthCache, below). A miss is one statement (db/repositories/api-keys.repository.ts): the key,
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
 * The in-process cache of what authentication reads on every request: API keys by hash and which organization a
 * merchant belongs to. Entries live a short TTL in a bounded map, and every change to api_keys or merchants
 * (a trigger NOTIFYs `switchyard_auth` on update and delete, Migration20261223000000_auth_change_notifications)
 * empties the cache of every API process at once. While the LISTEN connection is down, nothing is cached or
 * served from the cache: a missed notification can never keep a revoked key alive.
 *
 * A read that started before a change may finish after the notification emptied the cache; the generation
 * ticket taken before the read keeps its (possibly stale) result out.
 *
 * Key hashes that matched no active key are remembered too, for the same TTL, in a bounded map of their own: a client
 * repeating one unknown key (an old deployment's revoked key) costs one read per TTL, and a flood of random keys can
 * push out only other unknown keys, never a cached valid one.
 */
export const AUTH_CHANGES_CHANNEL = 'switchyard_auth';
export const AUTH_CACHE_TTL_MS = 10_000;
export const AUTH_CACHE_MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  expires: number;
}

/** A map with a TTL per entry and a ceiling: the oldest entries go first. */
class Entries {
  private readonly map = new Map<string, Entry<unknown>>();

  constructor(private readonly maxEntries: number) {}

  get<V>(key: string, now: number): V | undefined {
    const entry = this.map.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.map.delete(key);
      return undefined;
    }
    return entry.value as V;
  }

  set<V>(key: string, value: V, expires: number): void {
    this.map.delete(key);
    // Maps iterate in insertion order: the first key is the oldest entry.
    while (this.map.size >= this.maxEntries) this.map.delete(this.map.keys().next().value as string);
    this.map.set(key, { value, expires });
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
  }
}

export class AuthCache {
  private readonly entries: Entries;
  private readonly unknownKeys: Entries;
  private generation = 0;
  private listening = false;

  constructor(
    private readonly ttlMs = AUTH_CACHE_TTL_MS,
    maxEntries = AUTH_CACHE_MAX_ENTRIES,
  ) {
    this.entries = new Entries(maxEntries);
    this.unknownKeys = new Entries(maxEntries);
  }

  /** Taken before reading the database; `set` keeps the result only if nothing changed in between. */
  ticket(): number {
    return this.generation;
  }

  get<V>(key: string, now = Date.now()): V | undefined {
    return this.listening ? this.entries.get<V>(key, now) : undefined;
  }

  set<V>(key: string, value: V, ticket: number, now = Date.now()): void {
    if (this.listening && ticket === this.generation) this.entries.set(key, value, now + this.ttlMs);
  }

  /** Whether this key hash matched no active key when it was last read (within the TTL). */
  isUnknownKey(hash: string, now = Date.now()): boolean {
    return this.listening && this.unknownKeys.get<true>(hash, now) === true;
  }

  rememberUnknownKey(hash: string, ticket: number, now = Date.now()): void {
    if (this.listening && ticket === this.generation) this.unknownKeys.set(hash, true, now + this.ttlMs);
  }

  get size(): number {
    return this.entries.size;
  }

  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
    this.unknownKeys.clear();
  }

  setListening(listening: boolean): void {
    this.invalidate();
    this.listening = listening;
  }
}

/** The cache of one API process, emptied by every auth-relevant change in any process. */
export async function startAuthCache(orm: Orm, cache = new AuthCache()): Promise<{ cache: AuthCache } & Listener> {
  const listener = await listen(
    orm,
    AUTH_CHANGES_CHANNEL,
    () => cache.invalidate(),
    (listening) => cache.setListening(listening),
  );
  return { cache, stop: () => listener.stop() };
}
