/**
 * transaction_attempts: one row per provider call of a charge, keyed by (transaction, attempt number) so a retried
 * activity writes the same row. Written by the charge activities and the unknown-outcome reconciler.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface AttemptKey {
  transactionId: string;
  attemptNumber: number;
  isFallback: boolean;
  attempt: { connectorId: string; providerSlug: string; nodeId: string | null };
}

/** The attempt as started (pending); nothing when a retried activity already wrote it. */
export async function startAttempt(em: EntityManager, key: AttemptKey): Promise<void> {
  await em.execute(
    `insert into transaction_attempts (id, transaction_id, attempt_number, is_fallback, connector_id, provider_slug,
       routing_node_id, status, started_at)
     values (?, ?, ?, ?, ?, ?, ?, 'pending', now()) on conflict (transaction_id, attempt_number) do nothing`,
    [
      randomUUID(),
      key.transactionId,
      key.attemptNumber,
      key.isFallback,
      key.attempt.connectorId,
      key.attempt.providerSlug,
      key.attempt.nodeId,
    ],
  );
}

export interface AttemptResultRow {
  status: string;
  outcome: string;
  /** Null for a success or a pending answer. */
  errorCode: string | null;
  message: string | null;
  providerReference: string | null;
  /** The card network's id of an approved attempt (kept for merchant-initiated renewals); absent = unchanged. */
  networkTransactionId?: string | null;
}

/** Longest network transaction id kept (the column's check): a longer provider string is dropped, never an error. */
const NETWORK_ID_MAX = 200;

/** The provider's answer; error_category is the outcome for failures. A pending attempt stays unfinished. */
export async function recordAttemptResult(
  em: EntityManager,
  key: Pick<AttemptKey, 'transactionId' | 'attemptNumber'>,
  result: AttemptResultRow,
): Promise<void> {
  const failed = result.status !== 'success' && result.status !== 'pending';
  await em.execute(
    `update transaction_attempts set status = ?, outcome = ?,
       finished_at = case when ? = 'pending' then null else coalesce(finished_at, now()) end,
       error_category = ?, error_code = ?, error_message = ?, provider_reference = ?,
       network_transaction_id = coalesce(?, network_transaction_id)
     where transaction_id = ? and attempt_number = ?`,
    [
      result.status,
      result.outcome,
      result.status,
      failed ? result.outcome : null,
      result.errorCode,
      result.message,
      result.providerReference,
      result.networkTransactionId && result.networkTransactionId.length <= NETWORK_ID_MAX
        ? result.networkTransactionId
        : null,
      key.transactionId,
      key.attemptNumber,
    ],
  );
}

export async function readAttempt(
  em: EntityManager,
  transactionId: string,
  attemptNumber: number,
): Promise<{ status: string; outcome: string | null; providerReference: string | null } | undefined> {
  const [row] = await em.execute<Array<{ status: string; outcome: string | null; provider_reference: string | null }>>(
    'select status, outcome, provider_reference from transaction_attempts where transaction_id = ? and attempt_number = ?',
    [transactionId, attemptNumber],
  );
  return row && { status: row.status, outcome: row.outcome, providerReference: row.provider_reference };
}

/** An attempt whose call failed on every try: recorded (or overwritten) as an error under `errorCode`. */
export async function recordUnresolvedAttempt(em: EntityManager, key: AttemptKey, errorCode: string): Promise<void> {
  await em.execute(
    `insert into transaction_attempts (id, transaction_id, attempt_number, is_fallback, connector_id, provider_slug,
       routing_node_id, status, outcome, started_at, finished_at, error_category, error_code, error_message)
     values (?, ?, ?, ?, ?, ?, ?, 'error', 'processing_error', now(), now(), 'processing_error', ?, ?)
     on conflict (transaction_id, attempt_number) do update set status = 'error', outcome = 'processing_error',
       finished_at = now(), error_category = 'processing_error', error_code = excluded.error_code,
       error_message = excluded.error_message`,
    [
      randomUUID(),
      key.transactionId,
      key.attemptNumber,
      key.isFallback,
      key.attempt.connectorId,
      key.attempt.providerSlug,
      key.attempt.nodeId,
      errorCode,
      'The provider call failed on every try; its outcome is unknown',
    ],
  );
}

/** The reconciler's verdict on an unresolved attempt (only while it is still unresolved under `unresolvedCode`). */
export async function settleUnresolvedAttempt(
  em: EntityManager,
  key: Pick<AttemptKey, 'transactionId' | 'attemptNumber'>,
  verdict: { outcome: string | null; code: string; message: string; providerReference: string | null },
  unresolvedCode: string,
): Promise<void> {
  await em.execute(
    `update transaction_attempts set outcome = coalesce(?, outcome), error_code = ?, error_message = ?,
       provider_reference = coalesce(?, provider_reference), finished_at = coalesce(finished_at, now())
     where transaction_id = ? and attempt_number = ? and error_code = ?`,
    [
      verdict.outcome,
      verdict.code,
      verdict.message,
      verdict.providerReference,
      key.transactionId,
      key.attemptNumber,
      unresolvedCode,
    ],
  );
}
