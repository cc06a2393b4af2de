/**
 * Idempotency (Document 1, rules 1–4), built once for every create endpoint.
 *
 * The key's row is inserted in the same database transaction as the work it guards, and the finished
 * response is stored before that transaction commits. So:
 * - a replay finds the committed response and returns it without running anything;
 * - a concurrent request with the same key blocks on the uncommitted row until the first finishes (then
 *   replays), or gets 409 once `waitMs` passes — the two never both run;
 * - a request that fails rolls back its key together with its work, and may simply be retried.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { errors } from '../../domain/platform/errors';

export interface StoredResponse {
  status: number;
  body: unknown;
}

export interface IdempotentRequest {
  /** Merchant id (or organization id for organization-level creates). */
  scopeId: string;
  key: string;
  /** Hash of what the request asks for; the same key with another fingerprint is a conflict. */
  fingerprint: string;
  ttlSeconds: number;
  waitMs: number;
  /** The stored response is sealed at rest (envelope encryption) and opened for a replay. */
  seal(text: string): string;
  open(stored: string): string;
}

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** JSON with sorted keys, so {a,b} and {b,a} are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requestFingerprint(method: string, route: string, params: unknown, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${route}\n${canonicalJson(params)}\n${canonicalJson(body)}`)
    .digest('hex');
}

const LOCK_NOT_AVAILABLE = '55P03';

export async function runIdempotent(
  em: EntityManager,
  request: IdempotentRequest,
  execute: (em: EntityManager) => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  try {
    return await em.transactional(async (tx) => {
      await tx.execute(`set local lock_timeout = ${Math.max(1, Math.floor(request.waitMs))}`);
      // Inserts a fresh row, or takes over one whose retention has lapsed; returns nothing when a live row exists.
      const claimed = await tx.execute(
        `insert into idempotency_keys (scope_id, key, fingerprint, expires_at)
         values (?, ?, ?, now() + make_interval(secs => ?))
         on conflict (scope_id, key) do update
           set fingerprint = excluded.fingerprint, expires_at = excluded.expires_at, created_at = now(),
               response_status = null, response_sealed = null
           where idempotency_keys.expires_at <= now()
         returning key`,
        [request.scopeId, request.key, request.fingerprint, request.ttlSeconds],
      );
      await tx.execute('set local lock_timeout to default');
      if (claimed.length === 0) {
        const [stored] = await tx.execute<{ fingerprint: string; response_sealed: string | null }[]>(
          'select fingerprint, response_sealed from idempotency_keys where scope_id = ? and key = ?',
          [request.scopeId, request.key],
        );
        if (stored.fingerprint !== request.fingerprint) {
          throw errors.conflict(
            'IDEMPOTENCY_KEY_CONFLICT',
            'This Idempotency-Key was already used with a different request',
          );
        }
        const body: unknown =
          stored.response_sealed === null ? undefined : JSON.parse(request.open(stored.response_sealed));
        return { status: 200, body, replayed: true };
      }
      const response = await execute(tx);
      await tx.execute(
        'update idempotency_keys set response_status = ?, response_sealed = ? where scope_id = ? and key = ?',
        [
          response.status,
          response.body === undefined ? null : request.seal(JSON.stringify(response.body)),
          request.scopeId,
          request.key,
        ],
      );
      return { ...response, replayed: false };
    });
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) {
      throw errors.conflict(
        'IDEMPOTENCY_KEY_IN_USE',
        'A request with this Idempotency-Key is still being processed; retry shortly',
      );
    }
    throw error;
  }
}
