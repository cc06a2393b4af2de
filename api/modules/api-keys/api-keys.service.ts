/**
 * API-key management of one merchant (the spec leaves it "not shown", docs/api-decisions.md): issue with
 * a name and narrowed scopes, list without secrets, revoke (refused from the next request: the NOTIFY trigger and
 * the route's own cache invalidation), roll (a new key now; the old one keeps working for an overlap, then expires).
 * Every query is scoped to the merchant the caller resolved to; another merchant's key is a 404. Each key names who
 * minted it, and each change is in the merchant's activity log with its actor, in the request's transaction. A key
 * is never wider than the API key that issues or rolls it, so a narrowed organization key cannot mint its way out.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import { ApiKeySchema, MerchantSchema, type ApiKey } from '../../../db/entities';
import { issueApiKey, type KeyCreator } from '../../../domain/api-keys/api-keys.service';
import { SCOPES, type Scope } from '../../../domain/api-keys/api-keys.scopes';
import { recordActivity, type Actor } from '../../../domain/merchants/merchants.activity';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';
import type { CreateApiKeyBody } from './api-keys.schema';

const HOUR_MS = 60 * 60 * 1000;

/**
 * The scopes of the API key minting a key; null for a Dashboard owner or admin, who may grant every scope. A key
 * that could be given scopes its issuer lacks would let a narrowed key widen itself, so that is a 403 naming them.
 */
export type IssuerScopes = ReadonlySet<string> | null;

function grantable(scopes: readonly string[], issuerScopes: IssuerScopes): void {
  const missing = issuerScopes ? scopes.filter((scope) => !issuerScopes.has(scope)) : [];
  if (missing.length > 0)
    throw errors.forbidden(`A key cannot have a scope the key issuing it lacks: ${missing.join(', ')}`);
}

/** What the activity log keeps of a key: never the key or its hash. */
const described = (key: ApiKey) => ({
  api_key_id: key.id,
  name: key.name,
  kind: key.kind,
  scopes: [...key.scopes],
  expires_at: key.expiresAt?.toISOString() ?? null,
});

/**
 * A key change in the activity record: a merchant key's on its merchant; an organization key's on every merchant of
 * the organization, since such a key acts on each of them (the record is kept per merchant).
 */
async function recordKeyChange(
  em: EntityManager,
  action: string,
  key: ApiKey,
  actor: Actor,
  extra = {},
): Promise<void> {
  const merchantIds = key.merchantId
    ? [key.merchantId]
    : (await em.find(MerchantSchema, { organizationId: key.organizationId }, { fields: ['id'] })).map((m) => m.id);
  for (const merchantId of merchantIds)
    recordActivity(em, {
      organizationId: key.organizationId,
      merchantId,
      action,
      actor,
      changes: { ...described(key), ...extra },
    });
}

export async function createMerchantApiKey(
  em: EntityManager,
  merchant: { id: string; organizationId: string },
  body: Static<typeof CreateApiKeyBody>,
  creator: KeyCreator,
  issuerScopes: IssuerScopes = null,
): Promise<{ record: ApiKey; key: string }> {
  // Public keys ship in web pages: they never carry a scope (browser routes need none).
  if (body.kind === 'public' && body.scopes && body.scopes.length > 0) {
    throw errors.invalidValue('scopes', 'public keys carry no scopes; omit scopes or send []');
  }
  const scopes = body.scopes ?? (body.kind === 'public' ? [] : SCOPES);
  grantable(scopes, issuerScopes);
  const issued = await issueApiKey(em, {
    organizationId: merchant.organizationId,
    merchantId: merchant.id,
    kind: body.kind,
    scopes,
    name: body.name,
    expiresAt: body.expires_in_hours ? new Date(Date.now() + body.expires_in_hours * HOUR_MS) : null,
    createdBy: creator,
  });
  await recordKeyChange(em, 'api_key.created', issued.record, creator);
  await em.flush();
  return issued;
}

export async function listMerchantApiKeys(
  em: EntityManager,
  merchantId: string,
  page: PageRequest & { created_by?: string },
): Promise<{ items: ApiKey[]; total: number }> {
  const [items, total] = await em.findAndCount(
    ApiKeySchema,
    { merchantId, ...(page.created_by ? { createdById: page.created_by } : {}) },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: offsetOf(page) },
  );
  return { items, total };
}

async function ownKey(em: EntityManager, merchantId: string, keyId: string): Promise<ApiKey> {
  const key = await em.findOne(ApiKeySchema, { id: keyId, merchantId });
  if (!key) throw errors.notFound('No such API key for this merchant');
  return key;
}

/** Refused from the next request: the NOTIFY trigger and the route's own cache invalidation. */
function markRevoked(key: ApiKey): void {
  key.status = 'revoked';
  key.revokedAt = new Date();
}

async function revoke(em: EntityManager, key: ApiKey, actor: Actor): Promise<void> {
  markRevoked(key);
  await recordKeyChange(em, 'api_key.revoked', key, actor);
}

/** Idempotent: revoking a revoked key answers it as it is (and records nothing more). A merchant's or an organization's. */
export async function revokeKey(em: EntityManager, key: ApiKey, actor: Actor): Promise<ApiKey> {
  if (key.status !== 'revoked') {
    await revoke(em, key, actor);
    await em.flush();
  }
  return key;
}

export async function revokeMerchantApiKey(
  em: EntityManager,
  merchantId: string,
  keyId: string,
  actor: KeyCreator,
): Promise<ApiKey> {
  return revokeKey(em, await ownKey(em, merchantId, keyId), actor);
}

/**
 * The keys a Dashboard user minted for this merchant that still work; with `revokeThem`, revoked by `actor` in the
 * caller's transaction. What a member's removal does with the keys they leave behind.
 */
export async function settleKeysMintedBy(
  em: EntityManager,
  merchantId: string,
  userId: string,
  actor: Actor,
  revokeThem: boolean,
): Promise<{ revoked: string[]; kept: string[] }> {
  const keys = await em.find(
    ApiKeySchema,
    {
      merchantId,
      createdByType: 'dashboard_user',
      createdById: userId,
      status: 'active',
      $or: [{ expiresAt: null }, { expiresAt: { $gt: new Date() } }],
    },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  if (!revokeThem) return { revoked: [], kept: keys.map((key) => key.id) };
  for (const key of keys) await revoke(em, key, actor);
  await em.flush();
  return { revoked: keys.map((key) => key.id), kept: [] };
}

/**
 * A new key with the same name, kind, scopes and expiry (a roll replaces the secret, never the key's life or reach);
 * the old one expires after the overlap (never later than before). 409 for a key that no longer works.
 */
async function rollApiKey(
  em: EntityManager,
  old: ApiKey,
  overlapHours: number,
  creator: KeyCreator,
): Promise<{ record: ApiKey; key: string }> {
  const now = Date.now();
  if (old.status === 'revoked' || (old.expiresAt && old.expiresAt.getTime() <= now)) {
    throw errors.conflict('API_KEY_NOT_ACTIVE', 'Only an active key can be rolled; create a new key instead');
  }
  const expiresAt = old.expiresAt;
  const overlapEnds = new Date(now + overlapHours * HOUR_MS);
  if (!expiresAt || expiresAt > overlapEnds) old.expiresAt = overlapEnds;
  return issueApiKey(em, {
    organizationId: old.organizationId,
    merchantId: old.merchantId ?? undefined,
    kind: old.kind,
    scopes: old.scopes as Scope[],
    name: old.name,
    expiresAt,
    createdBy: creator,
  });
}

export async function rollMerchantApiKey(
  em: EntityManager,
  merchantId: string,
  keyId: string,
  overlapHours: number,
  creator: KeyCreator,
  issuerScopes: IssuerScopes = null,
): Promise<{ record: ApiKey; key: string }> {
  return rollKey(em, await ownKey(em, merchantId, keyId), overlapHours, creator, issuerScopes);
}

/** Rolls a merchant's or an organization's key, recording the roll (see rollApiKey). */
export async function rollKey(
  em: EntityManager,
  old: ApiKey,
  overlapHours: number,
  creator: KeyCreator,
  issuerScopes: IssuerScopes = null,
): Promise<{ record: ApiKey; key: string }> {
  grantable(old.scopes, issuerScopes);
  const rolled = await rollApiKey(em, old, overlapHours, creator);
  await recordKeyChange(em, 'api_key.rolled', rolled.record, creator, {
    rolled_from: old.id,
    old_key_expires_at: old.expiresAt?.toISOString() ?? null,
  });
  await em.flush();
  return rolled;
}
