/**
 * idempotency_keys: the one owner of the table's SQL. The request protocol around it (claim, work, store, replay)
 * is api/http/idempotency.ts; housekeeping purges what has expired.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { readNamed } from '../reads';

export interface KeyClaim {
  scopeId: string;
  key: string;
  fingerprint: string;
  ttlSeconds: number;
  claimId: string;
  leaseSeconds: number;
}

export interface StoredKey {
  fingerprint: string;
  responseStatus: number | null;
  responseSealed: string | null;
}

const affected = (result: unknown) => (result as { affectedRows?: number }).affectedRows ?? 0;

/**
 * Takes the key — a fresh row, one whose retention lapsed, or one whose holder died (no answer and its lease
 * passed) when the fingerprint is the same — and says whether it did. One statement, in a transaction of its own
 * (autocommit): it blocks at most `lockWaitMs` on a row another transaction is writing (then PostgreSQL's 55P03).
 * The lock timeout is set by the statement itself, before its insert can wait (the executor produces the row to
 * insert, and so runs set_config, before the conflict check), and only for that statement's implicit transaction:
 * one round trip instead of BEGIN, SET LOCAL, the insert, a reset and COMMIT. Called inside an open transaction,
 * the timeout would last until its end.
 */
export async function claimKey(em: EntityManager, claim: KeyClaim, lockWaitMs: number): Promise<boolean> {
  const claimed = await em.execute(
    `insert into idempotency_keys (scope_id, key, fingerprint, expires_at, claim_id, lease_until)
     select ?, ?, ?, now() + make_interval(secs => ?), ?, now() + make_interval(secs => ?)
       from (select set_config('lock_timeout', ?, true) as lock_timeout) as bounded_wait
      where bounded_wait.lock_timeout is not null
     on conflict (scope_id, key) do update
       set fingerprint = excluded.fingerprint, expires_at = excluded.expires_at, created_at = now(),
           response_status = null, response_sealed = null,
           claim_id = excluded.claim_id, lease_until = excluded.lease_until
       where idempotency_keys.expires_at <= now()
          or (idempotency_keys.response_status is null and idempotency_keys.lease_until <= now()
              and idempotency_keys.fingerprint = excluded.fingerprint)
     returning key`,
    [
      claim.scopeId,
      claim.key,
      claim.fingerprint,
      claim.ttlSeconds,
      claim.claimId,
      claim.leaseSeconds,
      String(Math.max(1, Math.floor(lockWaitMs))),
    ],
  );
  return claimed.length > 0;
}

export async function readKey(em: EntityManager, scopeId: string, key: string): Promise<StoredKey | undefined> {
  const [row] = await em.execute<
    { fingerprint: string; response_status: number | null; response_sealed: string | null }[]
  >('select fingerprint, response_status, response_sealed from idempotency_keys where scope_id = ? and key = ?', [
    scopeId,
    key,
  ]);
  return (
    row && { fingerprint: row.fingerprint, responseStatus: row.response_status, responseSealed: row.response_sealed }
  );
}

/** The stored answer of a key still within its retention, or nothing (no row, lapsed, or no answer yet). */
export async function readAnswer(em: EntityManager, scopeId: string, key: string): Promise<StoredKey | undefined> {
  // Every replay starts here: a named statement (db/reads.ts), planned once per connection.
  const [row] = await readNamed<{ fingerprint: string; response_status: number; response_sealed: string | null }>(
    em,
    'idempotency_answer',
    `select fingerprint, response_status, response_sealed from idempotency_keys
     where scope_id = ? and key = ? and response_status is not null and expires_at > now()`,
    [scopeId, key],
  );
  return (
    row && { fingerprint: row.fingerprint, responseStatus: row.response_status, responseSealed: row.response_sealed }
  );
}

/** Stores the answer only while the key has none (and, with a `claimId`, only while that claim holds it). */
export async function storeResponse(
  em: EntityManager,
  target: { scopeId: string; key: string; claimId: string | null },
  response: { status: number; sealedBody: string | null },
): Promise<boolean> {
  const stored = await em.execute(
    `update idempotency_keys set response_status = ?, response_sealed = ?, lease_until = null
     where scope_id = ? and key = ? and response_status is null and (?::text is null or claim_id = ?)
     returning key`,
    [response.status, response.sealedBody, target.scopeId, target.key, target.claimId, target.claimId],
  );
  return stored.length > 0;
}

/** Frees a claim that stored no answer, so the corrected retry can run. */
export async function releaseKey(em: EntityManager, scopeId: string, key: string, claimId: string): Promise<void> {
  await em.execute(
    'delete from idempotency_keys where scope_id = ? and key = ? and claim_id = ? and response_status is null',
    [scopeId, key, claimId],
  );
}

/**
 * Keeps a claim with no answer whose work goes on without its request (a workflow that outlived the wait): the key
 * stays bound to the request's fingerprint, and its lease ends now, so the same request retried takes it over at once.
 */
export async function keepClaimForRetry(
  em: EntityManager,
  scopeId: string,
  key: string,
  claimId: string,
): Promise<void> {
  await em.execute(
    'update idempotency_keys set lease_until = now() where scope_id = ? and key = ? and claim_id = ? and response_status is null',
    [scopeId, key, claimId],
  );
}

export async function purgeExpiredKeys(em: EntityManager): Promise<number> {
  return affected(await em.execute('delete from idempotency_keys where expires_at <= now()', [], 'run'));
}
