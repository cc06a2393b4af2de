/**
 * transaction_attempts: one row per provider call of a charge, keyed by (transaction, attempt number) so a retried
 * activity writes the same row. Every write of the attempt's lifecycle is here: started, answered (with its
 * connector's circuit, in the same statement), unresolved, reconciled and given back, and the verdicts a provider's
 * webhook keeps on it. Written by the charge activities, the unknown-outcome reconciler and the inbound webhook;
 * what they read about an attempt is in transaction-attempt-reads.repository.ts.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { StoredThreeDs } from '../../workflows/lib/three-ds';
import { failureOnCircuit, successOnCircuit } from './connector-health.repository';

export interface AttemptKey {
  transactionId: string;
  attemptNumber: number;
  isFallback: boolean;
  attempt: { connectorId: string; providerSlug: string; nodeId: string | null };
}

/**
 * Starts the attempt as pending, only while its transaction is pending (a decided charge calls no provider) and only
 * once (a retried activity inserts nothing): the body of a CTE, so the statement that reads the attempt's setup
 * (transaction-attempt-reads.repository.ts) starts it in the same round trip.
 */
export function startAttemptPart(key: AttemptKey): { sql: string; params: unknown[] } {
  return {
    sql: `insert into transaction_attempts (id, transaction_id, attempt_number, is_fallback, connector_id, provider_slug,
         routing_node_id, status, started_at)
       select ?, ?, ?, ?, ?, ?, ?, 'pending', now()
        where exists (select 1 from transactions p where p.id = ? and p.status = 'pending')
       on conflict (transaction_id, attempt_number) do nothing`,
    params: [
      randomUUID(),
      key.transactionId,
      key.attemptNumber,
      key.isFallback,
      key.attempt.connectorId,
      key.attempt.providerSlug,
      key.attempt.nodeId,
      key.transactionId,
    ],
  };
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
  /** The attempt's 3-D Secure (the API's three_ds object), written with the answer it belongs to; absent = unchanged. */
  threeDs?: StoredThreeDs;
}

/** Longest network transaction id kept (the column's check): a longer provider string is dropped, never an error. */
const NETWORK_ID_MAX = 200;

/** What the attempt tells its connector's circuit (domain/connectors/connector-health.ts healthSignal). */
export interface AttemptHealth {
  connectorId: string;
  signal: 'success' | 'failure' | 'none';
  failureCode: string | null;
}

/**
 * The circuit counts the attempt only when this statement finishes it (it was unfinished before: a retried activity
 * never counts twice); `before` is the statement's first CTE.
 */
const FINISHED_BY_THIS_STATEMENT = 'exists (select 1 from before where before.unfinished)';

/** What the attempt's statement did to the connector's circuit: null when it did not move. */
export type CircuitMove = {
  to: 'open' | 'closed';
  reason: 'consecutive_failures' | 'probe_failed' | 'probe_succeeded';
} | null;

/**
 * The provider's answer; error_category is the outcome for failures. A pending attempt stays unfinished. With
 * `health`, the connector's circuit is kept in the same statement (one round trip): returns its move, if any.
 */
export async function recordAttemptResult(
  em: EntityManager,
  key: Pick<AttemptKey, 'transactionId' | 'attemptNumber'>,
  result: AttemptResultRow,
  health?: AttemptHealth,
): Promise<CircuitMove> {
  const failed = result.status !== 'success' && result.status !== 'pending';
  const circuit =
    health?.signal === 'failure'
      ? failureOnCircuit(health.connectorId, health.failureCode, FINISHED_BY_THIS_STATEMENT)
      : health?.signal === 'success'
        ? successOnCircuit(health.connectorId, FINISHED_BY_THIS_STATEMENT)
        : null;
  const rows = await em.execute<Array<{ state: string | null; moved: boolean | null; reopened: boolean | null }>>(
    `with before as (
       select finished_at is null as unfinished from transaction_attempts where transaction_id = ? and attempt_number = ?
     ),
     attempt as (
       update transaction_attempts set status = ?, outcome = ?,
         finished_at = case when ? = 'pending' then null else coalesce(finished_at, now()) end,
         error_category = ?, error_code = ?, error_message = ?, provider_reference = ?,
         network_transaction_id = coalesce(?, network_transaction_id), three_ds = coalesce(?::jsonb, three_ds)
       where transaction_id = ? and attempt_number = ?
       returning 1
     )${circuit ? `, health as (${circuit.sql})` : ''}
     ${circuit ? 'select state, moved, reopened from health' : 'select null as state, null as moved, null as reopened'}`,
    [
      key.transactionId,
      key.attemptNumber,
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
      result.threeDs ? JSON.stringify(result.threeDs) : null,
      key.transactionId,
      key.attemptNumber,
      ...(circuit?.params ?? []),
    ],
  );
  const [moved] = rows;
  if (!moved?.moved) return null;
  if (moved.state === 'closed') return { to: 'closed', reason: 'probe_succeeded' };
  return { to: 'open', reason: moved.reopened ? 'probe_failed' : 'consecutive_failures' };
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

/**
 * The reconciler's verdict on an unresolved attempt (only while it is still unresolved under `unresolvedCode`).
 * Returns whether it was written.
 */
export async function settleUnresolvedAttempt(
  em: EntityManager,
  key: Pick<AttemptKey, 'transactionId' | 'attemptNumber'>,
  verdict: { outcome: string | null; code: string; message: string; providerReference: string | null },
  unresolvedCode: string,
): Promise<boolean> {
  const updated = await em.execute<Array<{ id: string }>>(
    `update transaction_attempts set outcome = coalesce(?, outcome), error_code = ?, error_message = ?,
       provider_reference = coalesce(?, provider_reference), finished_at = coalesce(finished_at, now())
     where transaction_id = ? and attempt_number = ? and error_code = ?
     returning id`,
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
  return updated.length > 0;
}

/**
 * A provider's payment verdict (from its webhook) kept on the transaction's attempt at this connector that never got
 * its answer: unresolved under `unresolvedCode`, or still waiting (started, no outcome yet). Never on an attempt whose
 * transaction is decided otherwise, nor for a payment reference another attempt of the transaction answered with; an
 * approved verdict replaces a declined one, never the reverse. Returns null when no attempt took it, else whether the
 * attempt that took it is unresolved while its transaction is pending (its charge's resolution waits on it).
 */
export async function keepWebhookVerdict(
  em: EntityManager,
  scope: { transactionId: string; merchantId: string; connectorId: string },
  verdict: { verdict: 'approved' | 'declined'; providerReference: string },
  unresolvedCode: string,
): Promise<{ awaitsResolution: boolean } | null> {
  const updated = await em.execute<Array<{ awaits_resolution: boolean }>>(
    `update transaction_attempts a set webhook_verdict = ?, webhook_verdict_reference = ?
       from transactions t
      where t.id = a.transaction_id and t.id = ? and t.merchant_id = ? and t.status in ('pending', 'failed')
        and a.connector_id = ?
        and (a.error_code = ? or (a.outcome is null and a.finished_at is null))
        and (a.webhook_verdict is null or ? = 'approved')
        and not exists (select 1 from transaction_attempts o
                         where o.transaction_id = t.id and o.id <> a.id and o.provider_reference = ?)
      returning (t.status = 'pending' and a.error_code is not distinct from ?) as awaits_resolution`,
    [
      verdict.verdict,
      verdict.providerReference,
      scope.transactionId,
      scope.merchantId,
      scope.connectorId,
      unresolvedCode,
      verdict.verdict,
      verdict.providerReference,
      unresolvedCode,
    ],
  );
  return updated.length > 0 ? { awaitsResolution: updated[0].awaits_resolution } : null;
}

/**
 * A payment the provider took after its transaction ended unpaid (its payment.succeeded came late): the transaction's
 * last attempt at that connector is handed to the reconciler — unresolved under `unresolvedCode`, with the provider's
 * approval as its webhook verdict — which gives the payment back like any charge made under a failed transaction.
 * Not an attempt already unresolved (its verdict is kept by recordWebhookVerdict) nor one whose charge was already
 * given back. Returns whether it was handed over.
 */
export async function handOverLatePayment(
  em: EntityManager,
  key: { transactionId: string; connectorId: string },
  providerReference: string,
  unresolvedCode: string,
): Promise<boolean> {
  const updated = await em.execute<Array<{ id: string }>>(
    `update transaction_attempts set error_code = ?, webhook_verdict = 'approved', webhook_verdict_reference = ?,
            reconcile_checked_at = null
      where id = (select id from transaction_attempts where transaction_id = ? and connector_id = ?
                   order by attempt_number desc limit 1)
        and error_code is distinct from ? and give_back_status is distinct from 'succeeded'
      returning id`,
    [unresolvedCode, providerReference, key.transactionId, key.connectorId, unresolvedCode],
  );
  return updated.length > 0;
}

/**
 * At most `limit` attempts unresolved under `unresolvedCode` whose transaction ended unpaid, for one reconciler run:
 * those no run has taken up yet first, then the ones taken up longest ago (oldest first among equals). Each one is
 * stamped as taken up now (reconcile_checked_at), whatever the run then makes of it.
 */
export async function takeUnresolvedForReconciliation(
  em: EntityManager,
  limit: number,
  /** The unresolved error_code, and the statuses a charge ends in without taking money (the state table's). */
  unresolved: { code: string; unpaidEnds: readonly string[] },
): Promise<Array<{ transactionId: string; attemptNumber: number }>> {
  const rows = await em.execute<Array<{ transaction_id: string; attempt_number: number }>>(
    `with picked as (
       select a.id, a.transaction_id, a.attempt_number, a.reconcile_checked_at, a.started_at
         from transaction_attempts a join transactions t on t.id = a.transaction_id
        where a.error_code = ? and t.status in (?)
        order by a.reconcile_checked_at nulls first, a.started_at limit ?
     ), stamped as (
       update transaction_attempts s set reconcile_checked_at = now() from picked where s.id = picked.id
     )
     select transaction_id, attempt_number from picked order by reconcile_checked_at nulls first, started_at`,
    [unresolved.code, unresolved.unpaidEnds, limit],
  );
  return rows.map((row) => ({ transactionId: row.transaction_id, attemptNumber: row.attempt_number }));
}

/** Where the reconciler's give-back of an unresolved attempt's charge stands at the provider. */
export type GiveBackStatus = 'pending' | 'succeeded' | 'failed';

/**
 * The reconciler's give-back number `tries` (sent under its own provider key) and the provider's answer to it. Only
 * on the attempt still unresolved under `unresolvedCode` and only as the next try, or as the same try's later word:
 * two runs racing write one try once. Returns whether it was written.
 */
export async function recordGiveBack(
  em: EntityManager,
  key: Pick<AttemptKey, 'transactionId' | 'attemptNumber'>,
  giveBack: { tries: number; status: GiveBackStatus; reference: string | null },
  unresolvedCode: string,
): Promise<boolean> {
  const updated = await em.execute<Array<{ id: string }>>(
    `update transaction_attempts set give_back_tries = ?, give_back_status = ?,
       give_back_reference = coalesce(?, give_back_reference)
     where transaction_id = ? and attempt_number = ? and error_code = ? and give_back_tries in (?, ?)
     returning id`,
    [
      giveBack.tries,
      giveBack.status,
      giveBack.reference,
      key.transactionId,
      key.attemptNumber,
      unresolvedCode,
      giveBack.tries - 1,
      giveBack.tries,
    ],
  );
  return updated.length > 0;
}

/**
 * The provider's webhook verdict on the reconciler's give-back refund, found by the refund's provider reference on
 * an unresolved attempt at this connector: it decides a pending one, and a failure also overrides a success (a
 * refund can fail after it succeeded; never the reverse). Returns whether an attempt took it.
 */
export async function keepGiveBackVerdict(
  em: EntityManager,
  scope: { merchantId: string; connectorId: string },
  verdict: { providerReference: string; status: 'succeeded' | 'failed' },
  unresolvedCode: string,
): Promise<boolean> {
  const updated = await em.execute<Array<{ id: string }>>(
    `update transaction_attempts a set give_back_status = ?
       from transactions t
      where t.id = a.transaction_id and t.merchant_id = ? and a.connector_id = ? and a.error_code = ?
        and a.give_back_reference = ?
        and (a.give_back_status = 'pending' or (a.give_back_status = 'succeeded' and ? = 'failed'))
      returning a.id`,
    [verdict.status, scope.merchantId, scope.connectorId, unresolvedCode, verdict.providerReference, verdict.status],
  );
  return updated.length > 0;
}

/**
 * The provider's later decline of the payment the transaction's last attempt left pending (the settlement's read
 * or its payment.failed webhook: domain/transactions/transactions.late-declines.ts). Only on an attempt that went
 * pending (or succeeded into a pending payment): a declined attempt's own code stays its error_code. The row stays
 * locked until the caller's transaction commits, which failureReasonOf's locking read waits for.
 */
export async function recordLateDecline(
  em: EntityManager,
  transactionId: string,
  decline: { code: string | null; message: string | null },
): Promise<void> {
  await em.execute(
    `update transaction_attempts set late_decline_code = ?, late_decline_message = ?
      where id = (select id from transaction_attempts where transaction_id = ? order by attempt_number desc limit 1)
        and status in ('success', 'pending')`,
    [decline.code, decline.message, transactionId],
  );
}

/**
 * Marks the attempt's open challenge as announced (transaction.action_required); true the first time only, so a
 * retried step records the event once.
 */
export async function markChallengeAnnounced(
  em: EntityManager,
  key: Pick<AttemptKey, 'transactionId' | 'attemptNumber'>,
): Promise<StoredThreeDs | null> {
  const [row] = await em.execute<Array<{ three_ds: StoredThreeDs }>>(
    `update transaction_attempts set three_ds = three_ds || '{"announced": true}'::jsonb
      where transaction_id = ? and attempt_number = ? and three_ds->>'status' = 'challenged'
        and three_ds->'announced' is null
      returning three_ds`,
    [key.transactionId, key.attemptNumber],
  );
  return row?.three_ds ?? null;
}
