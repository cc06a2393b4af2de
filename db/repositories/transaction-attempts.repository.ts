/**
 * transaction_attempts: one row per provider call of a charge, keyed by (transaction, attempt number) so a retried
 * activity writes the same row. Written by the charge activities, the unknown-outcome reconciler and (a provider's
 * payment verdict for an attempt that never got its answer) the inbound webhook.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TransactionStatus } from '../entities';
import type { StoredThreeDs } from '../../workflows/lib/three-ds';

export interface AttemptKey {
  transactionId: string;
  attemptNumber: number;
  isFallback: boolean;
  attempt: { connectorId: string; providerSlug: string; nodeId: string | null };
}

/** A charge attempt's setup, read in the statement that starts it. Sealed values stay sealed (the vault opens them). */
export interface AttemptSetup {
  transaction: {
    id: string;
    merchantId: string;
    amount: number;
    currency: string;
    paymentMethod: string;
    chargeType: string;
    capture: boolean;
    installments: number | null;
    subscriptionId: string | null;
    cardTokenId: string | null;
    paymentInstrumentId: string | null;
    /** When it is no longer pending, no attempt was started: the charge is decided and nothing may call a provider. */
    status: TransactionStatus;
    providerReference: string | null;
    /** Its customer is on a test clock (such a charge never reaches a live connector). */
    customerOnTestClock: boolean;
  };
  /** The merchant's connector; null when it is gone. */
  connector: { id: string; providerSlug: string; isTestMode: boolean; credentialsEncrypted: string } | null;
  /** The saved card the transaction charges (null: none, or gone). */
  instrument: SealedCard | null;
  /** The card token the transaction charges (null: none, or gone), with its CVC while it is kept. */
  token: (SealedCard & { status: string; expiresAt: Date; cvcEncrypted: string | null }) | null;
}

export interface SealedCard {
  panEncrypted: string | null;
  holderNameEncrypted: string | null;
  expMonth: number | null;
  expYear: number | null;
}

interface AttemptSetupRow {
  id: string;
  customer_on_test_clock: boolean;
  merchant_id: string;
  status: TransactionStatus;
  provider_reference: string | null;
  amount: string;
  currency: string;
  payment_method: string;
  charge_type: string;
  capture: boolean;
  installments: number | null;
  subscription_id: string | null;
  card_token_id: string | null;
  payment_instrument_id: string | null;
  connector_id: string | null;
  provider_slug: string;
  is_test_mode: boolean;
  credentials_encrypted: string;
  instrument_id: string | null;
  instrument_pan: string | null;
  instrument_holder: string | null;
  instrument_exp_month: number | null;
  instrument_exp_year: number | null;
  token_id: string | null;
  token_status: string;
  token_expires_at: string;
  token_pan: string | null;
  token_holder: string | null;
  token_exp_month: number;
  token_exp_year: number;
  cvc_encrypted: string | null;
}

/**
 * Starts the attempt (as startAttempt) and, in the same statement, reads what the provider call needs: the
 * transaction (of this merchant), the connector and the card — one round trip instead of five ORM reads and writes.
 * Undefined when the transaction does not exist for the merchant.
 */
export async function startAttemptWithSetup(
  em: EntityManager,
  key: AttemptKey & { merchantId: string },
): Promise<AttemptSetup | undefined> {
  const [row] = await em.execute<AttemptSetupRow[]>(
    `with started as (
       insert into transaction_attempts (id, transaction_id, attempt_number, is_fallback, connector_id, provider_slug,
         routing_node_id, status, started_at)
       select ?, ?, ?, ?, ?, ?, ?, 'pending', now()
        where exists (select 1 from transactions p where p.id = ? and p.status = 'pending')
       on conflict (transaction_id, attempt_number) do nothing
     )
     select t.id, t.merchant_id, t.status, t.provider_reference, t.amount, t.currency, t.payment_method, t.charge_type, t.capture, t.installments,
            t.subscription_id, t.card_token_id, t.payment_instrument_id,
            exists (select 1 from customers cu where cu.id = t.customer_id and cu.test_clock_id is not null)
              as customer_on_test_clock,
            c.id as connector_id, c.provider_slug, c.is_test_mode, c.credentials_encrypted,
            i.id as instrument_id, i.pan_encrypted as instrument_pan, i.holder_name_encrypted as instrument_holder,
            i.exp_month as instrument_exp_month, i.exp_year as instrument_exp_year,
            k.id as token_id, k.status as token_status, to_json(k.expires_at) #>> '{}' as token_expires_at,
            k.pan_encrypted as token_pan, k.holder_name_encrypted as token_holder,
            k.exp_month as token_exp_month, k.exp_year as token_exp_year, v.cvc_encrypted
       from transactions t
       left join merchant_connectors c on c.id = ? and c.merchant_id = t.merchant_id
       left join payment_instruments i on i.id = t.payment_instrument_id and i.merchant_id = t.merchant_id
       left join card_tokens k on k.id = t.card_token_id and k.merchant_id = t.merchant_id
       left join card_token_cvcs v on v.card_token_id = k.id
      where t.id = ? and t.merchant_id = ?`,
    [
      randomUUID(),
      key.transactionId,
      key.attemptNumber,
      key.isFallback,
      key.attempt.connectorId,
      key.attempt.providerSlug,
      key.attempt.nodeId,
      key.transactionId,
      key.attempt.connectorId,
      key.transactionId,
      key.merchantId,
    ],
  );
  if (!row) return undefined;
  return {
    transaction: {
      id: row.id,
      merchantId: row.merchant_id,
      amount: Number(row.amount),
      currency: row.currency,
      paymentMethod: row.payment_method,
      chargeType: row.charge_type,
      capture: row.capture,
      installments: row.installments,
      subscriptionId: row.subscription_id,
      cardTokenId: row.card_token_id,
      paymentInstrumentId: row.payment_instrument_id,
      status: row.status,
      providerReference: row.provider_reference,
      customerOnTestClock: row.customer_on_test_clock,
    },
    connector: row.connector_id
      ? {
          id: row.connector_id,
          providerSlug: row.provider_slug,
          isTestMode: row.is_test_mode,
          credentialsEncrypted: row.credentials_encrypted,
        }
      : null,
    instrument: row.instrument_id
      ? {
          panEncrypted: row.instrument_pan,
          holderNameEncrypted: row.instrument_holder,
          expMonth: row.instrument_exp_month,
          expYear: row.instrument_exp_year,
        }
      : null,
    token: row.token_id
      ? {
          status: row.token_status,
          expiresAt: new Date(row.token_expires_at),
          panEncrypted: row.token_pan,
          holderNameEncrypted: row.token_holder,
          expMonth: row.token_exp_month,
          expYear: row.token_exp_year,
          cvcEncrypted: row.cvc_encrypted,
        }
      : null,
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
 * The circuit's part of the attempt's statement, applied only when this statement finishes the attempt
 * (it was unfinished before: a retried activity never counts twice). A failure upserts the connector's row: one more
 * consecutive failure; reaching the threshold opens a closed circuit and any failure reopens a half-open one. A
 * success touches the row only while it holds failures or a probe: a healthy connector costs no write at all.
 * Atomic on the row under PostgreSQL's row lock, so workers running attempts at once all count.
 */
const FAILURE_HEALTH = `health as (
       insert into connector_health as h (connector_id, merchant_id, state, consecutive_failures, failure_threshold,
         cooldown_seconds, opened_at, next_probe_at, last_failure_at, last_failure_code, changed_at, updated_at)
       select c.id, c.merchant_id, case when s.threshold <= 1 then 'open' else 'closed' end, 1, s.threshold, s.cooldown,
              case when s.threshold <= 1 then now() end,
              case when s.threshold <= 1 then now() + s.cooldown * interval '1 second' end,
              now(), ?, case when s.threshold <= 1 then now() end, now()
         from merchant_connectors c
         cross join lateral (select coalesce((c.config->'circuit_breaker'->>'failure_threshold')::int, 5) as threshold,
                                    coalesce((c.config->'circuit_breaker'->>'cooldown_seconds')::int, 60) as cooldown) s
        where c.id = ? and exists (select 1 from before where before.unfinished)
       on conflict (connector_id) do update set
         consecutive_failures = h.consecutive_failures + 1,
         failure_threshold = excluded.failure_threshold, cooldown_seconds = excluded.cooldown_seconds,
         state = case when h.state = 'half_open' or (h.state = 'closed' and h.consecutive_failures + 1 >= excluded.failure_threshold)
                      then 'open' else h.state end,
         opened_at = case when h.state = 'half_open' or (h.state = 'closed' and h.consecutive_failures + 1 >= excluded.failure_threshold)
                          then now() else h.opened_at end,
         next_probe_at = case when h.state = 'half_open' or (h.state = 'closed' and h.consecutive_failures + 1 >= excluded.failure_threshold)
                              then now() + excluded.cooldown_seconds * interval '1 second' else h.next_probe_at end,
         changed_at = case when h.state = 'half_open' or (h.state = 'closed' and h.consecutive_failures + 1 >= excluded.failure_threshold)
                           then now() else h.changed_at end,
         last_failure_at = now(), last_failure_code = excluded.last_failure_code, updated_at = now()
       returning h.state, h.changed_at = now() as moved, h.consecutive_failures > h.failure_threshold as reopened
     )`;

const SUCCESS_HEALTH = `health as (
       update connector_health h set consecutive_failures = 0,
              state = case when h.state = 'half_open' then 'closed' else h.state end,
              opened_at = case when h.state = 'half_open' then null else h.opened_at end,
              next_probe_at = case when h.state = 'half_open' then null else h.next_probe_at end,
              changed_at = case when h.state = 'half_open' then now() else h.changed_at end,
              updated_at = now()
        where h.connector_id = ? and (h.consecutive_failures > 0 or h.state = 'half_open')
          and exists (select 1 from before where before.unfinished)
       returning h.state, h.changed_at = now() as moved, h.consecutive_failures > h.failure_threshold as reopened
     )`;

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
  const signal = health?.signal ?? 'none';
  const healthCte = signal === 'failure' ? `, ${FAILURE_HEALTH}` : signal === 'success' ? `, ${SUCCESS_HEALTH}` : '';
  const healthParams =
    signal === 'failure'
      ? [health!.failureCode, health!.connectorId]
      : signal === 'success'
        ? [health!.connectorId]
        : [];
  const rows = await em.execute<Array<{ state: string | null; moved: boolean | null; reopened: boolean | null }>>(
    `with before as (
       select finished_at is null as unfinished from transaction_attempts where transaction_id = ? and attempt_number = ?
     ),
     attempt as (
       update transaction_attempts set status = ?, outcome = ?,
         finished_at = case when ? = 'pending' then null else coalesce(finished_at, now()) end,
         error_category = ?, error_code = ?, error_message = ?, provider_reference = ?,
         network_transaction_id = coalesce(?, network_transaction_id)
       where transaction_id = ? and attempt_number = ?
       returning 1
     )${healthCte}
     ${signal === 'none' ? 'select null as state, null as moved, null as reopened' : 'select state, moved, reopened from health'}`,
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
      key.transactionId,
      key.attemptNumber,
      ...healthParams,
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

/** An attempt the charge's resolution asks about, with its transaction: what the lookup needs and what it decides. */
export interface AttemptToResolve {
  transaction_status: string;
  merchant_id: string;
  workflow_id: string;
  capture: boolean;
  charge_type: string;
  connector_id: string;
  status: string;
  outcome: string | null;
  error_code: string | null;
  provider_reference: string | null;
  webhook_verdict: 'approved' | 'declined' | null;
  webhook_verdict_reference: string | null;
  /** Since the attempt's request was sent (the database's clock, as started_at). */
  since_sent_ms: number;
}

export async function readAttemptToResolve(
  em: EntityManager,
  attempt: { transactionId: string; attemptNumber: number },
): Promise<AttemptToResolve | undefined> {
  const [row] = await em.execute<AttemptToResolve[]>(
    `select t.status as transaction_status, t.merchant_id, t.workflow_id, t.capture, t.charge_type,
            a.connector_id, a.status, a.outcome, a.error_code, a.provider_reference,
            a.webhook_verdict, a.webhook_verdict_reference,
            (extract(epoch from now() - a.started_at) * 1000)::float8 as since_sent_ms
       from transactions t join transaction_attempts a on a.transaction_id = t.id
      where t.id = ? and a.attempt_number = ?`,
    [attempt.transactionId, attempt.attemptNumber],
  );
  return row;
}

/** A transaction still `pending`, with its last attempt (none when the charge never sent one). */
export interface PendingTransaction {
  id: string;
  merchant_id: string;
  workflow_id: string;
  amount: string | number;
  capture: boolean;
  expires_at: string | null;
  attempt_number: number | null;
  is_fallback: boolean | null;
  connector_id: string | null;
  provider_slug: string | null;
  routing_node_id: string | null;
  attempt_outcome: string | null;
}

/** Pending transactions older than `olderThanMinutes`, oldest first (of one merchant when given). */
export function readPendingTransactions(
  em: EntityManager,
  filter: { olderThanMinutes: number; merchantId: string | null; limit: number },
): Promise<PendingTransaction[]> {
  return em.execute<PendingTransaction[]>(
    `select t.id, t.merchant_id, t.workflow_id, t.amount, t.capture, to_json(t.expires_at) #>> '{}' as expires_at,
            a.attempt_number, a.is_fallback, a.connector_id, a.provider_slug, a.routing_node_id,
            a.outcome as attempt_outcome
       from transactions t
       left join lateral (select * from transaction_attempts x where x.transaction_id = t.id
                           order by x.attempt_number desc limit 1) a on true
      where t.status = 'pending' and t.created_at < now() - ? * interval '1 minute'
        and (?::text is null or t.merchant_id = ?)
      order by t.created_at limit ?`,
    [filter.olderThanMinutes, filter.merchantId, filter.merchantId, filter.limit],
  );
}

/** An attempt's 3-D Secure (the API's three_ds object; while a challenge is open, its URL and deadline too). */
export async function recordAttemptThreeDs(
  em: EntityManager,
  key: Pick<AttemptKey, 'transactionId' | 'attemptNumber'>,
  threeDs: StoredThreeDs,
): Promise<void> {
  await em.execute(
    'update transaction_attempts set three_ds = ?::jsonb where transaction_id = ? and attempt_number = ?',
    [JSON.stringify(threeDs), key.transactionId, key.attemptNumber],
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

/** What a charge waiting on the buyer's 3-D Secure challenge needs to ask the provider how it went. */
export interface ChallengedAttempt {
  transaction_status: TransactionStatus;
  merchant_id: string;
  workflow_id: string;
  connector_id: string;
  provider_reference: string | null;
  three_ds: StoredThreeDs | null;
}

export async function readChallengedAttempt(
  em: EntityManager,
  key: Pick<AttemptKey, 'transactionId' | 'attemptNumber'>,
): Promise<ChallengedAttempt | undefined> {
  const [row] = await em.execute<ChallengedAttempt[]>(
    `select t.status as transaction_status, t.merchant_id, t.workflow_id, a.connector_id, a.provider_reference,
            a.three_ds
       from transactions t join transaction_attempts a on a.transaction_id = t.id
      where t.id = ? and a.attempt_number = ?`,
    [key.transactionId, key.attemptNumber],
  );
  return row;
}
