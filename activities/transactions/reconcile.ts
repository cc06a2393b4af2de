/**
 * The reconciler's activities: charge attempts left `provider_outcome_unknown` (the provider may have charged, and
 * neither the attempt's own lookup nor its retries could tell) are looked up again at the same provider under the
 * attempt's idempotency key — unless the provider's payment notification already said what it did (kept on the
 * attempt by the inbound webhook: domain/provider-webhooks/provider-webhooks.attempt-verdicts.ts), which is then the
 * answer and nothing is asked (Adyen has no read; its AUTHORISATION notification is the only way to learn it). The
 * transaction already answered `failed`, so a charge found there is given back (voided, or refunded when it was
 * captured) rather than turned into a late success; docs/api-decisions.md says why. The attempt is settled as given
 * back only once the provider says the give-back succeeded (./reconcile-give-back.ts follows it across runs). An
 * attempt no lookup could tell by its deadline (PROVIDER_OUTCOME_IN_DOUBT_DAYS after it was sent) is escalated as in
 * doubt and no longer taken (domain/transactions/transactions.in-doubt.ts).
 */
import type { Orm } from '../../db/orm';
import { recordGiveBack, takeUnresolvedForReconciliation } from '../../db/repositories/transaction-attempts.repository';
import { readAttemptToReconcile } from '../../db/repositories/transaction-attempt-reads.repository';
import { UNPAID_ENDS } from '../../domain/transactions/transactions.state-table';
import { recordReconciledAttempt } from '../../domain/transactions/transactions.attempt-writes';
import { escalateTransactionInDoubt } from '../../domain/transactions/transactions.in-doubt';
import type { LookupResult, ProviderResult } from '../../domain/connectors/connector';
import { result } from '../../domain/connectors/http';
import type { VaultSettings } from '../vault';
import { UNRESOLVED_PROVIDER_CALL } from '../../workflows/lib/transaction-types';
import { attemptCallOf } from './attempt-call';
import { heartbeatWhile, readLookup } from './provider-call';
import { followGiveBack } from './reconcile-give-back';

export interface UnresolvedAttempt {
  transactionId: string;
  attemptNumber: number;
}

/**
 * What one reconciliation did. The first four settle the attempt (in_doubt: still unknown past its deadline,
 * escalated to the merchant); the others leave it for the next run — give_back_pending: the charge's give-back has
 * no final word yet; give_back_refused: the provider refused it (the next run sends another, up to MAX_GIVE_BACKS;
 * past that it waits for an operator).
 */
export type Reconciliation =
  | 'not_charged'
  | 'charge_reversed'
  | 'nothing_to_reverse'
  | 'in_doubt'
  | 'still_unknown'
  | 'give_back_pending'
  | 'give_back_refused'
  | 'connector_unavailable'
  | 'not_applicable';

/** error_code written on a settled attempt (the attempt no longer carries provider_outcome_unknown). */
export const RECONCILED_CODES = {
  not_charged: 'reconciled_not_charged',
  charge_reversed: 'reconciled_charge_reversed',
  nothing_to_reverse: 'reconciled_nothing_to_reverse',
} as const;

export function createReconcileActivities({ orm, vault }: { orm: Orm; vault?: VaultSettings }) {
  return {
    /**
     * At most `limit` unresolved attempts of charges that have finished (failed): those no run has taken up yet
     * first, then the ones taken up longest ago (oldest first among equals). Each one picked is stamped as taken up
     * now, whatever becomes of it, so attempts that stay unknown forever (an Adyen charge whose notification never
     * came) go to the back of the line and cannot starve newer attempts at other providers.
     */
    async listUnresolvedAttempts(limit: number): Promise<UnresolvedAttempt[]> {
      return takeUnresolvedForReconciliation(orm.em.fork(), limit, {
        code: UNRESOLVED_PROVIDER_CALL,
        unpaidEnds: UNPAID_ENDS,
      });
    },

    /** Looks the attempt up again; idempotent (the reversal reuses one provider key, the update is conditional). */
    async reconcileAttempt(input: UnresolvedAttempt): Promise<Reconciliation> {
      if (!vault) throw new Error('This worker was started without vault settings');
      return heartbeatWhile(() => reconcile(orm, vault, input));
    },
  };
}

async function reconcile(orm: Orm, vault: VaultSettings, input: UnresolvedAttempt): Promise<Reconciliation> {
  const em = orm.em.fork();
  const row = await readAttemptToReconcile(em, input, UNRESOLVED_PROVIDER_CALL);
  if (!row || !UNPAID_ENDS.includes(row.status)) return 'not_applicable';
  // The provider's own notification said it declined: nothing was taken and nothing needs asking.
  if (row.webhook_verdict === 'declined') {
    await settle(orm, input, RECONCILED_CODES.not_charged, null, 'The provider notified a decline (reconciled)', {
      providerReference: row.webhook_verdict_reference,
    });
    return 'not_charged';
  }
  const asking = await attemptCallOf(em, vault, {
    merchantId: row.merchant_id,
    connectorId: row.connector_id,
    workflowId: row.workflow_id,
    attemptNumber: input.attemptNumber,
  });
  if (!asking) return 'connector_unavailable';
  const { adapter, call } = asking;
  const verification = row.charge_type === 'setup_verification';
  const operation = verification ? 'verify' : 'authorize';
  const looked: LookupResult =
    row.webhook_verdict === 'approved' && row.webhook_verdict_reference
      ? // The provider notified that it approved, naming its payment: that is what a lookup would have found.
        {
          status: 'found',
          result: result('approved', { providerReference: row.webhook_verdict_reference, rawCode: 'webhook_verdict' }),
        }
      : // Nothing found counts as not charged only where the provider's read would already show the charge.
        readLookup(
          adapter,
          operation,
          await adapter.lookup(call, {
            operation,
            reference: input.transactionId,
            capture: row.capture,
          }),
          row.since_sent_ms,
        );
  if (looked.status === 'unknown') {
    if (row.since_sent_ms < vault.inDoubtAfterMs) return 'still_unknown';
    const escalated = await orm.em.fork().transactional((em) => escalateTransactionInDoubt(em, input));
    return escalated ? 'in_doubt' : 'not_applicable';
  }
  const found: ProviderResult | null = looked.status === 'found' ? looked.result : null;
  const charged = found !== null && (found.outcome === 'approved' || found.outcome === 'pending');
  if (!charged) {
    await settle(orm, input, RECONCILED_CODES.not_charged, found, 'The provider did not charge (reconciled)');
    return 'not_charged';
  }
  if (verification || !found.providerReference) {
    await settle(orm, input, RECONCILED_CODES.nothing_to_reverse, found, 'No amount to give back (reconciled)');
    return 'nothing_to_reverse';
  }
  // Captured (an approved auto-capture charge) is refunded; an authorization or a pending pix/boleto is voided.
  const refund = row.capture && found.outcome === 'approved';
  const step = await followGiveBack({
    adapter,
    call,
    transactionId: input.transactionId,
    providerReference: found.providerReference,
    refund,
    amount: Number(row.amount),
    currency: row.currency,
    tries: row.give_back_tries,
    status: row.give_back_status,
  });
  // Another run recorded this give-back meanwhile: its word stands, this run's is dropped.
  if (step.changed && !(await recordGiveBack(orm.em.fork(), input, step, UNRESOLVED_PROVIDER_CALL)))
    return 'give_back_pending';
  if (step.status === 'pending') return 'give_back_pending';
  if (step.status === 'failed') return 'give_back_refused';
  await settle(
    orm,
    input,
    RECONCILED_CODES.charge_reversed,
    found,
    `The provider had charged; the charge was given back (${refund ? 'refund' : 'void'})`,
  );
  return 'charge_reversed';
}

async function settle(
  orm: Orm,
  input: UnresolvedAttempt,
  code: string,
  found: ProviderResult | null,
  message: string,
  notified: { providerReference: string | null } = { providerReference: null },
): Promise<void> {
  await recordReconciledAttempt(orm.em.fork(), input, { code, message, found, ...notified });
}
