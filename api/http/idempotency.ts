/**
 * Idempotency (Document 1, rules 1–4), built once for every create endpoint. A request runs in phases, so no
 * database transaction stays open while it waits on anything slow (a workflow):
 * 1. claim the key and commit (the row has a fingerprint, no answer yet, the claim's id and a lease);
 * 2. do the work;
 * 3. store the answer and commit — in the work's own transaction when the work is plain database work.
 * So:
 * - a replay finds the committed response and returns it without running anything;
 * - a concurrent request with the same key sees the claim and waits for the stored answer (then replays), or gets
 *   409 IDEMPOTENCY_KEY_IN_USE once `waitMs` passes — the two never both run;
 * - a request that fails frees its key (its work rolled back, or idempotent by the key), and may simply be retried;
 * - except a request whose work goes on without it (504: a workflow outlived the wait): its key stays bound to its
 *   fingerprint — the same request retried takes the key over at once and joins that work, another request with the
 *   key is 409 IDEMPOTENCY_KEY_CONFLICT — for the work could still do what the request asked;
 * - a request that dies between phases leaves a claim with no answer: once its lease passes, a retry with the same
 *   fingerprint takes the key over and runs the (key-derived, so idempotent) work again.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import * as keys from '../../db/repositories/idempotency-keys.repository';
import { ApiError, errors } from '../../domain/platform/errors';

export interface StoredResponse {
  status: number;
  body: unknown;
}

/**
 * What an idempotent request answers: its work's response, or a replay. A replay's body is the stored JSON text,
 * sent as it was stored: the exact bytes of the first answer, never parsed and serialized again.
 */
export type IdempotentOutcome =
  (StoredResponse & { replayed: false }) | { status: 200; storedJson: string | undefined; replayed: true };

export interface IdempotentRequest {
  /** Merchant id (or organization id for organization-level creates). */
  scopeId: string;
  key: string;
  /** Hash of what the request asks for; the same key with another fingerprint is a conflict. */
  fingerprint: string;
  ttlSeconds: number;
  waitMs: number;
  /** How long a claim with no answer stays its holder's; after that a retry with the same fingerprint may take it. */
  leaseSeconds: number;
  /** The stored response is sealed at rest (envelope encryption) and opened for a replay. */
  seal(text: string): string;
  open(stored: string): string;
}

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * A request's work is bounded by its wait on a workflow (WORKFLOW_WAIT_MS) plus short database work (each statement
 * bounded by statement_timeout): a claim older than that plus a margin belongs to a request that died.
 */
export const idempotencyLeaseSeconds = (workflowWaitMs: number) => Math.ceil(workflowWaitMs / 1000) + 30;

/**
 * JSON with sorted keys (by UTF-16 code units), so {a,b} and {b,a} are the same request; a key set to undefined is
 * left out. Built as one string, without the arrays of entries a map/filter/sort/join would allocate per object: it
 * runs on every idempotent request, replays included.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) out += `${i === 0 ? '' : ','}${canonicalJson(value[i]) ?? ''}`;
    return `${out}]`;
  }
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    let out = '{';
    for (const key of Object.keys(object).sort()) {
      if (object[key] === undefined) continue;
      out += `${out === '{' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(object[key])}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value);
}

export function requestFingerprint(method: string, route: string, params: unknown, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${route}\n${canonicalJson(params)}\n${canonicalJson(body)}`)
    .digest('hex');
}

const LOCK_NOT_AVAILABLE = '55P03';
/** How often a duplicate looks again for the first request's stored answer. */
const POLL_MS = 50;

const keyInUse = () =>
  errors.conflict(
    'IDEMPOTENCY_KEY_IN_USE',
    'A request with this Idempotency-Key is still being processed; retry shortly',
  );

type Claim =
  | { kind: 'claimed' }
  | { kind: 'stored'; json: string | undefined }
  /** Another request holds the key and has not stored its answer yet. */
  | { kind: 'running' };

/**
 * Phase 1, one statement that commits on its own: take the key, or report what holds it. Blocks at most
 * `lockWaitMs` on a row another transaction is writing.
 */
async function claimKey(
  em: EntityManager,
  request: IdempotentRequest,
  claimId: string,
  lockWaitMs: number,
): Promise<Claim> {
  if (await keys.claimKey(em, { ...request, claimId }, lockWaitMs)) return { kind: 'claimed' };
  return readKey(em, request);
}

/** What holds a key someone else claimed: its stored answer, or a request still running. */
async function readKey(em: EntityManager, request: IdempotentRequest): Promise<Exclude<Claim, { kind: 'claimed' }>> {
  const stored = await keys.readKey(em, request.scopeId, request.key);
  // Deleted since (its holder failed): the caller looks again.
  if (!stored) return { kind: 'running' };
  if (stored.fingerprint !== request.fingerprint) {
    throw errors.conflict('IDEMPOTENCY_KEY_CONFLICT', 'This Idempotency-Key was already used with a different request');
  }
  if (stored.responseStatus === null) return { kind: 'running' };
  return { kind: 'stored', json: storedJson(request, stored) };
}

/** The JSON text of an answered key (refusing it when the request differs from the one that stored it). */
function storedJson(request: IdempotentRequest, stored: keys.StoredKey): string | undefined {
  if (stored.fingerprint !== request.fingerprint) {
    throw errors.conflict('IDEMPOTENCY_KEY_CONFLICT', 'This Idempotency-Key was already used with a different request');
  }
  return stored.responseSealed === null ? undefined : request.open(stored.responseSealed);
}

/** Claims the key, or waits up to `waitMs` for the request holding it to store its answer (then replays it). */
async function claimOrReplay(
  em: EntityManager,
  request: IdempotentRequest,
  claimId: string,
): Promise<{ json: string | undefined } | null> {
  const deadline = Date.now() + request.waitMs;
  for (;;) {
    let claim: Claim;
    try {
      claim = await claimKey(em, request, claimId, Math.max(1, deadline - Date.now()));
    } catch (error) {
      if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) throw keyInUse();
      throw error;
    }
    if (claim.kind === 'claimed') return null;
    if (claim.kind === 'stored') return { json: claim.json };
    const left = deadline - Date.now();
    if (left <= 0) throw keyInUse();
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
  }
}

/** Phase 3: the answer, stored only while the key has none (`claimId` given: only while this request holds it). */
const storeResponse = (
  em: EntityManager,
  request: IdempotentRequest,
  response: StoredResponse,
  claimId: string | null,
) =>
  keys.storeResponse(
    em,
    { scopeId: request.scopeId, key: request.key, claimId },
    {
      status: response.status,
      sealedBody: response.body === undefined ? null : request.seal(JSON.stringify(response.body)),
    },
  );

/** First wait before retrying a release the database refused, doubled up to RELEASE_RETRY_MAX_MS. */
const RELEASE_RETRY_MS = 250;
const RELEASE_RETRY_MAX_MS = 5_000;

/**
 * A failed request stores nothing: its key is freed for the corrected retry (if this request still holds it).
 * When the database itself is why the request failed (a restart, a cut connection), the release fails too; it is
 * retried in the background until the claim's lease would free the key anyway, so the client's retry after a 503
 * runs once the database is back instead of meeting its own dead claim (409 IDEMPOTENCY_KEY_IN_USE) for a lease.
 */
async function releaseKey(em: EntityManager, request: IdempotentRequest, claimId: string): Promise<void> {
  const leaseEnds = Date.now() + request.leaseSeconds * 1000;
  const attempt = async (retryInMs: number): Promise<void> => {
    try {
      await keys.releaseKey(em, request.scopeId, request.key, claimId);
    } catch {
      // The failure being reported matters more than this one; never longer than the lease.
      if (Date.now() + retryInMs >= leaseEnds) return;
      setTimeout(() => void attempt(Math.min(retryInMs * 2, RELEASE_RETRY_MAX_MS)), retryInMs).unref();
    }
  };
  await attempt(RELEASE_RETRY_MS);
}

/**
 * The work of a request that answered 504 goes on (its workflow was started and outlived the wait): its claim stays,
 * for only the same request may join that work. If the database refuses, the claim's lease ends it as usual.
 */
async function keepForRetry(em: EntityManager, request: IdempotentRequest, claimId: string): Promise<void> {
  try {
    await keys.keepClaimForRetry(em, request.scopeId, request.key, claimId);
  } catch {
    // The 504 being reported matters more; the claim stays bound to the fingerprint until its lease passes.
  }
}

/**
 * `reader`: the ORM's root EntityManager, for the one raw read of an answered key (db/reads.ts: a pooled connection,
 * no identity map); `em`: the request's EntityManager, asked for once the key turns out not to be answered, so a
 * replay never forks one.
 * `mode` is how the work runs once the key is claimed:
 * - 'transaction': the work and its stored answer commit together (a key is never answered without its work);
 * - 'no-transaction': work that waits on a workflow runs with no transaction open and stores its answer after.
 *   Such work must be idempotent by the key (its ids derive from the request's idempotency seed), because a retry
 *   may take over the key of a request that died between phases and run it again.
 */
export async function runIdempotent(
  reader: EntityManager,
  requestEm: () => EntityManager,
  request: IdempotentRequest,
  mode: 'transaction' | 'no-transaction',
  execute: (em: EntityManager) => Promise<StoredResponse>,
): Promise<IdempotentOutcome> {
  // A replay of an answered key is one read: an answer within its retention is final, so the claim (a transaction,
  // a lock timeout and an upsert that locks the row) could only end in the same replay or conflict.
  const answered = await keys.readAnswer(reader, request.scopeId, request.key);
  if (answered) return { status: 200, storedJson: storedJson(request, answered), replayed: true };

  const em = requestEm();

  const claimId = randomUUID();
  const replay = await claimOrReplay(em, request, claimId);
  if (replay) return { status: 200, storedJson: replay.json, replayed: true };

  if (mode === 'transaction') {
    try {
      return await em.transactional(async (tx) => {
        const response = await execute(tx);
        // Our lease lapsed and a retry took the key over: roll this work back rather than answer it twice.
        if (!(await storeResponse(tx, request, response, claimId))) throw keyInUse();
        return { ...response, replayed: false as const };
      });
    } catch (error) {
      await releaseKey(em, request, claimId);
      throw error;
    }
  }

  let response: StoredResponse;
  try {
    response = await execute(em);
  } catch (error) {
    if (error instanceof ApiError && error.status === 504) await keepForRetry(em, request, claimId);
    else await releaseKey(em, request, claimId);
    throw error;
  }
  if (await storeResponse(em, request, response, null)) return { ...response, replayed: false };
  // Another try of this very request (it took over our lapsed lease) stored the same work's answer first.
  const first = await readKey(em, request);
  return first.kind === 'stored'
    ? { status: 200, storedJson: first.json, replayed: true }
    : { ...response, replayed: false };
}
