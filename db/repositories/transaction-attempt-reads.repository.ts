/**
 * What the charge activities, the charge's resolution and the reconciler read about a transaction's attempt, each
 * in one statement joining the attempt to its transaction (and, for a provider call, the connector and the card).
 * The attempt's writes are in transaction-attempts.repository.ts; the setup read starts the attempt with that
 * file's insert, in the same statement.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TransactionStatus } from '../entities';
import { startAttemptPart, type AttemptKey, type GiveBackStatus } from './transaction-attempts.repository';
import type { StoredThreeDs } from '../../workflows/lib/three-ds';

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
 * Starts the attempt (startAttemptPart) and, in the same statement, reads what the provider call needs: the
 * transaction (of this merchant), the connector and the card — one round trip instead of five ORM reads and writes.
 * Undefined when the transaction does not exist for the merchant.
 */
export async function startAttemptWithSetup(
  em: EntityManager,
  key: AttemptKey & { merchantId: string },
): Promise<AttemptSetup | undefined> {
  const start = startAttemptPart(key);
  const [row] = await em.execute<AttemptSetupRow[]>(
    `with started as (${start.sql})
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
    [...start.params, key.attempt.connectorId, key.transactionId, key.merchantId],
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
  /** The last attempt's 3-D Secure record (status challenged: the charge waits for its buyer). */
  three_ds: StoredThreeDs | null;
}

/** Pending transactions older than `olderThanMinutes`, oldest first (of one merchant when given). */
export function readPendingTransactions(
  em: EntityManager,
  filter: { olderThanMinutes: number; merchantId: string | null; limit: number },
): Promise<PendingTransaction[]> {
  return em.execute<PendingTransaction[]>(
    `select t.id, t.merchant_id, t.workflow_id, t.amount, t.capture, to_json(t.expires_at) #>> '{}' as expires_at,
            a.attempt_number, a.is_fallback, a.connector_id, a.provider_slug, a.routing_node_id,
            a.outcome as attempt_outcome, a.three_ds
       from transactions t
       left join lateral (select * from transaction_attempts x where x.transaction_id = t.id
                           order by x.attempt_number desc limit 1) a on true
      where t.status = 'pending' and t.created_at < now() - ? * interval '1 minute'
        and (?::text is null or t.merchant_id = ?)
      order by t.created_at limit ?`,
    [filter.olderThanMinutes, filter.merchantId, filter.merchantId, filter.limit],
  );
}

/** The transaction's last attempt as far as its failure reason goes (the provider's code and message, or a late decline). */
export interface LastAttemptOutcome {
  provider_slug: string;
  status: string;
  outcome: string | null;
  error_code: string | null;
  message: string | null;
  late_decline_code: string | null;
  late_decline_message: string | null;
}

/**
 * The transaction's last attempt, share-locked: a payment.failed webhook records the provider's reason on the
 * attempt before it signals the verdict, in its own transaction; this waits for that to commit rather than read the
 * attempt without it. Undefined when the charge made no attempt.
 */
export async function lastAttemptOutcome(
  em: EntityManager,
  transactionId: string,
): Promise<LastAttemptOutcome | undefined> {
  const [last] = await em.execute<LastAttemptOutcome[]>(
    `select provider_slug, status, outcome, error_code, error_message as message, late_decline_code,
            late_decline_message
       from transaction_attempts where transaction_id = ? order by attempt_number desc limit 1 for share`,
    [transactionId],
  );
  return last;
}

/** An unresolved attempt the reconciler looks up again, with its transaction and where its give-back stands. */
export interface AttemptToReconcile {
  connector_id: string;
  merchant_id: string;
  workflow_id: string;
  status: TransactionStatus;
  capture: boolean;
  /** bigint: the driver answers a string. */
  amount: string | number;
  currency: string;
  charge_type: string;
  webhook_verdict: 'approved' | 'declined' | null;
  webhook_verdict_reference: string | null;
  give_back_tries: number;
  give_back_status: GiveBackStatus | null;
  /** Since the attempt's request was sent (the database's clock, as started_at). */
  since_sent_ms: number;
}

/** The attempt while it is still unresolved under `unresolvedCode` (undefined once settled). */
export async function readAttemptToReconcile(
  em: EntityManager,
  attempt: { transactionId: string; attemptNumber: number },
  unresolvedCode: string,
): Promise<AttemptToReconcile | undefined> {
  const [row] = await em.execute<AttemptToReconcile[]>(
    `select a.connector_id, t.merchant_id, t.workflow_id, t.status, t.capture, t.amount, t.currency, t.charge_type,
            a.webhook_verdict, a.webhook_verdict_reference, a.give_back_tries, a.give_back_status,
            (extract(epoch from now() - a.started_at) * 1000)::float8 as since_sent_ms
         from transaction_attempts a join transactions t on t.id = a.transaction_id
         where a.transaction_id = ? and a.attempt_number = ? and a.error_code = ?`,
    [attempt.transactionId, attempt.attemptNumber, unresolvedCode],
  );
  return row;
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
