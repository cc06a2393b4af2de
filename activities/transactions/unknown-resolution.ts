/**
 * The charge's own resolution of an attempt it left unknown (the provider may have charged, and neither the call
 * nor its immediate lookup could tell): while the transaction waits `pending`, the resolution workflow asks again
 * here, under the attempt's idempotency key, until the provider says. A verdict the provider's payment notification
 * left on the attempt (provider-webhooks.attempt-verdicts.ts; Adyen has no read) is the answer and nothing is asked.
 * The finding is written on the attempt, so the transaction's final state and the attempt agree. An attempt that
 * already has an answer (written by an earlier try, or the attempt of a charge whose workflow died after its
 * provider call) reports it as it stands.
 */
import type { Orm } from '../../db/orm';
import type { Outcome, ProviderResult } from '../../domain/connectors/connector';
import { result } from '../../domain/connectors/http';
import { recordAttemptFinding } from '../../domain/transactions/transactions.attempt-writes';
import { UNRESOLVED_PROVIDER_CALL, type AttemptLookup } from '../../workflows/lib/transaction-types';
import type { VaultSettings } from '../vault';
import { attemptCallOf } from './attempt-call';
import { heartbeatWhile, readLookup } from './provider-call';
import {
  readAttemptToResolve,
  type AttemptToResolve,
} from '../../db/repositories/transaction-attempt-reads.repository';

/** error_code of an attempt the provider never processed (a lookup found nothing under its key). */
export const NOT_PROCESSED = 'provider_not_processed';

export function createUnknownResolutionActivities({ orm, vault }: { orm: Orm; vault?: VaultSettings }) {
  return {
    async lookUpUnknownAttempt(input: { transactionId: string; attemptNumber: number }): Promise<AttemptLookup> {
      if (!vault) throw new Error('This worker was started without vault settings');
      const em = orm.em.fork();
      const row = await readAttemptToResolve(em, input);
      if (!row) throw new Error(`Attempt ${input.attemptNumber} of ${input.transactionId} not found`);
      if (row.transaction_status !== 'pending') return { status: 'decided', transactionStatus: row.transaction_status };
      if (row.error_code !== UNRESOLVED_PROVIDER_CALL && row.outcome && row.status !== 'pending') {
        return { status: 'answered', outcome: row.outcome as Outcome, providerReference: row.provider_reference };
      }
      const found = await heartbeatWhile(() => findOut(orm, vault, input, row));
      if (!found || found.outcome === 'unknown' || found.outcome === 'pending') return { status: 'unknown' };
      await recordAttemptFinding(em, input, found);
      return { status: 'answered', outcome: found.outcome, providerReference: found.providerReference };
    },
  };
}

/** What the provider did under the attempt's key: its notification, else its lookup; null when it cannot be asked. */
async function findOut(
  orm: Orm,
  vault: VaultSettings,
  input: { transactionId: string; attemptNumber: number },
  row: AttemptToResolve,
): Promise<ProviderResult | null> {
  if (row.webhook_verdict === 'approved' && row.webhook_verdict_reference) {
    return result('approved', { providerReference: row.webhook_verdict_reference, rawCode: 'webhook_verdict' });
  }
  if (row.webhook_verdict === 'declined') {
    return result('hard_decline', {
      providerReference: row.webhook_verdict_reference,
      rawCode: 'provider_declined',
      rawMessage: 'The provider notified a decline',
    });
  }
  const asking = await attemptCallOf(orm.em.fork(), vault, {
    merchantId: row.merchant_id,
    connectorId: row.connector_id,
    workflowId: row.workflow_id,
    attemptNumber: input.attemptNumber,
  });
  // A deleted connector cannot be asked: the attempt stays unknown (its notification may still come).
  if (!asking) return null;
  const { adapter, call } = asking;
  // The same reading of a lookup as the attempt's own and the reconciler's (readLookup): "nothing under the key" is
  // "not processed" only where that provider's read sees work in flight, or once its grace period has passed.
  const operation = row.charge_type === 'setup_verification' ? 'verify' : 'authorize';
  const lookup = await adapter.lookup(call, { operation, reference: input.transactionId, capture: row.capture });
  const read = readLookup(adapter, operation, lookup, row.since_sent_ms);
  if (read.status === 'found') return read.result;
  if (read.status === 'unknown')
    return result('unknown', { rawCode: read.rawCode, rawMessage: 'No definitive answer' });
  // Not processed: nothing was charged, and the attempt says so under its own code.
  return result('network_error', {
    rawCode: NOT_PROCESSED,
    rawMessage: 'No definitive answer; the provider holds no payment under the key',
  });
}
