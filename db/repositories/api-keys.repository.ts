/**
 * api_keys: the raw SQL on the table (keys are issued, rolled and revoked through the entity). Authentication's
 * read when its cache (AuthCache, api/http/auth.ts) has nothing is one statement, so a request right after the cache was
 * emptied (every change to api_keys or merchants, in any process, empties every process's cache) costs one round
 * trip more, not three; it also keeps last_used_at, authentication's own bookkeeping.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKeyKind, MerchantStatus } from '../entities';

export interface ActiveKey {
  id: string;
  organizationId: string;
  merchantId: string | null;
  kind: ApiKeyKind;
  secretHash: string;
  scopes: string[];
  expiresAt: Date | null;
  /** The key's merchant's status (null for organization keys): read with the key, cached with it. */
  merchantStatus: MerchantStatus | null;
}

interface KeyRow {
  id: string;
  organization_id: string;
  merchant_id: string | null;
  kind: ApiKeyKind;
  secret_hash: string;
  scopes: string[];
  expires_at: string | Date | null;
  merchant_status: MerchantStatus | null;
}

/**
 * The active, unexpired key with this hash, with its merchant's status, and last_used_at recorded (at most once a
 * minute per key; the auth-change trigger ignores that column) — one statement. A data-modifying WITH runs whether
 * or not the select reads it, and sees the same snapshot, so the update touches exactly the key returned. (The
 * hash is what finds the caller's scope: no organization or merchant is known before it.)
 */
export async function activeKeyByHash(em: EntityManager, secretHash: string, now: Date): Promise<ActiveKey | null> {
  const [row] = await em.execute<KeyRow[]>(
    `with key as (
       select k.id, k.organization_id, k.merchant_id, k.kind, k.secret_hash, k.scopes, k.expires_at,
              m.status as merchant_status
         from api_keys k left join merchants m on m.id = k.merchant_id
        where k.secret_hash = ? and k.status = 'active' and (k.expires_at is null or k.expires_at > ?)
     ), used as (
       update api_keys set last_used_at = now()
        where id = (select id from key) and (last_used_at is null or last_used_at < now() - interval '1 minute')
     )
     select * from key`,
    [secretHash, now],
  );
  if (!row) return null;
  return {
    id: row.id,
    organizationId: row.organization_id,
    merchantId: row.merchant_id,
    kind: row.kind,
    secretHash: row.secret_hash,
    scopes: row.scopes,
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    merchantStatus: row.merchant_status,
  };
}

/** A merchant being deleted takes its revoked keys with it (an active key keeps it from deletion). */
export async function deleteRevokedMerchantKeys(em: EntityManager, merchantId: string): Promise<void> {
  await em.execute(`delete from api_keys where merchant_id = ? and status <> 'active'`, [merchantId]);
}
