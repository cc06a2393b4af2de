/**
 * The reconciler's activities: charge attempts left `provider_outcome_unknown` (the provider may have charged, and
 * neither the attempt's own lookup nor its retries could tell) are looked up again at the same provider under the
 * attempt's idempotency key. The transaction already answered `failed`, so a charge found there is given back
 * (voided, or refunded when it was captured) rather than turned into a late success; docs/api-decisions.md says why.
 */
import type { Orm } from '../../db/orm';
import { loadConnectorSecrets } from '../../domain/connectors/connectors.secrets';
import { recordReconciledAttempt } from '../../domain/transactions/transactions.charge-writes';
import type { ProviderCall, ProviderResult } from '../../domain/connectors/connector';
import type { VaultSettings } from '../vault';
import { UNRESOLVED_PROVIDER_CALL } from '../../workflows/lib/charge-types';
import { heartbeatWhile } from './heartbeat';
import { isUnusableAttemptSetup } from './unknown-outcome';

export interface UnresolvedAttempt {
  transactionId: string;
  attemptNumber: number;
}

/** What one reconciliation did. The first three settle the attempt; the others leave it for the next run. */
export type Reconciliation =
  | 'not_charged'
  | 'charge_reversed'
  | 'nothing_to_reverse'
  | 'still_unknown'
  | 'reversal_unconfirmed'
  | 'connector_unavailable'
  | 'not_applicable';

/** error_code written on a settled attempt (the attempt no longer carries provider_outcome_unknown). */
export const RECONCILED_CODES = {
  not_charged: 'reconciled_not_charged',
  charge_reversed: 'reconciled_charge_reversed',
  nothing_to_reverse: 'reconciled_nothing_to_reverse',
} as const;

interface AttemptRow {
  connector_id: string;
  merchant_id: string;
  workflow_id: string;
  status: string;
  capture: boolean;
  amount: number;
  currency: string;
  charge_type: string;
}

export function createReconcileActivities({ orm, vault }: { orm: Orm; vault?: VaultSettings }) {
  return {
    /** The oldest unresolved attempts of charges that have finished (failed), at most `limit`. */
    async listUnresolvedAttempts(limit: number): Promise<UnresolvedAttempt[]> {
      const rows = await orm.em.fork().execute<Array<{ transaction_id: string; attempt_number: number }>>(
        `select a.transaction_id, a.attempt_number from transaction_attempts a join transactions t on t.id = a.transaction_id
         where a.error_code = ? and t.status = 'failed' order by a.started_at limit ?`,
        [UNRESOLVED_PROVIDER_CALL, limit],
      );
      return rows.map((row) => ({ transactionId: row.transaction_id, attemptNumber: row.attempt_number }));
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
  const [row] = await em.execute<AttemptRow[]>(
    `select a.connector_id, t.merchant_id, t.workflow_id, t.status, t.capture, t.amount, t.currency, t.charge_type
         from transaction_attempts a join transactions t on t.id = a.transaction_id
         where a.transaction_id = ? and a.attempt_number = ? and a.error_code = ?`,
    [input.transactionId, input.attemptNumber, UNRESOLVED_PROVIDER_CALL],
  );
  if (!row || row.status !== 'failed') return 'not_applicable';
  let secrets: Awaited<ReturnType<typeof loadConnectorSecrets>>;
  try {
    secrets = await loadConnectorSecrets(em, vault.encryptionKeys, row.merchant_id, row.connector_id);
  } catch (error) {
    if (isUnusableAttemptSetup(error)) return 'connector_unavailable';
    throw error;
  }
  const adapter = vault.adapterFor(secrets.connector.providerSlug);
  const call: ProviderCall = {
    baseUrl: vault.providerBaseUrl(secrets.connector),
    credentials: secrets.credentials,
    // The attempt's own key (charge workflow id + attempt number), as attemptCharge sent it.
    idempotencyKey: `${row.workflow_id}:${input.attemptNumber}`,
    timeoutMs: vault.providerTimeoutMs,
  };
  const verification = row.charge_type === 'setup_verification';
  const looked = await adapter.lookup(call, {
    operation: verification ? 'verify' : 'authorize',
    reference: input.transactionId,
    capture: row.capture,
  });
  if (looked.status === 'unknown') return 'still_unknown';
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
  const reversalCall = { ...call, idempotencyKey: `${call.idempotencyKey}:reverse` };
  const providerReference = found.providerReference;
  // Captured (an approved auto-capture charge) is refunded; an authorization or a pending pix/boleto is voided.
  const reversal =
    row.capture && found.outcome === 'approved'
      ? await adapter.refund(reversalCall, {
          providerReference,
          amount: row.amount,
          currency: row.currency,
          reference: input.transactionId,
        })
      : await adapter.void(reversalCall, { providerReference });
  if (reversal.outcome !== 'approved' && reversal.outcome !== 'pending') return 'reversal_unconfirmed';
  await settle(
    orm,
    input,
    RECONCILED_CODES.charge_reversed,
    found,
    `The provider had charged; the charge was given back (${row.capture ? 'refund' : 'void'})`,
  );
  return 'charge_reversed';
}

async function settle(
  orm: Orm,
  input: UnresolvedAttempt,
  code: string,
  found: ProviderResult | null,
  message: string,
): Promise<void> {
  await recordReconciledAttempt(orm.em.fork(), input, { code, message, found });
}
