/**
 * Capture, void and refund: begin, call the provider, finish — each its own idempotent activity. The writes (the
 * checks and reservation under the row lock, the 422 codes, the moves) are domain/transactions/
 * transactions.operation-writes.ts; these activities open the database transaction, call the provider and heartbeat.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm';
import { RefundSchema, TransactionSchema } from '../../db/entities';
import { loadConnectorSecrets } from '../../domain/connectors/connectors.secrets';
import { settleRefund } from '../../domain/transactions/transactions.refunds';
import { operationVerdictOf } from '../../db/repositories/transactions.repository';
import {
  beginOperation,
  finishOperation,
  type FinishOperationInput,
} from '../../domain/transactions/transactions.operation-writes';
import { escalateOperationInDoubt } from '../../domain/transactions/transactions.in-doubt';
import type { VaultSettings } from '../vault';
import { heartbeatWhile, readLookup } from './provider-call';
import type { Outcome } from '../../domain/connectors/connector';
import type { OperationInput, OperationStart } from '../../workflows/lib/transaction-types';

type ProviderOperationInput = OperationInput & { start: Extract<OperationStart, { ok: true }>; idempotencyKey: string };
/** An operation looked up `sinceSentMs` after its request was sent (the workflow's clock: replay-safe). */
type LookupOperationInput = ProviderOperationInput & { sinceSentMs: number };
export interface OperationAnswer {
  outcome: Outcome;
  providerReference: string | null;
  rawCode: string | null;
}

/** error_code of an operation the provider never processed (a lookup found nothing under its key). */
const NOT_PROCESSED = 'provider_not_processed';

/** Where a refund the provider answered pending stands when asked again (see checkPendingRefund). */
export type PendingRefundCheck = 'succeeded' | 'failed' | 'pending' | 'missing';
/** A provider's answer that decides a refund: it was refunded, or refused. */
const DECIDED = new Set<Outcome>(['approved', 'soft_decline', 'hard_decline']);

export function createOperationActivities({ orm, vault }: { orm: Orm; vault?: VaultSettings }) {
  const inTransaction = <T>(work: (em: EntityManager) => Promise<T>) => orm.em.fork().transactional(work);

  /** The operation's adapter and call (credentials opened here, never returned to the workflow). */
  const connectorCall = async (input: ProviderOperationInput) => {
    if (!vault) throw new Error('This worker was started without vault settings');
    const em = orm.em.fork();
    const tx = await em.findOneOrFail(TransactionSchema, { id: input.transactionId });
    const { connector, credentials } = await loadConnectorSecrets(
      em,
      vault.encryptionKeys,
      tx.merchantId,
      input.start.connectorId,
    );
    const call = {
      baseUrl: vault.providerBaseUrl(connector),
      credentials,
      idempotencyKey: input.idempotencyKey,
      timeoutMs: vault.providerTimeoutMs,
    };
    return { adapter: vault.adapterFor(connector.providerSlug), call };
  };

  const lookUp = async (input: LookupOperationInput): Promise<OperationAnswer | null> => {
    // The provider's notification may have decided a capture or void already (the only word where it has no read).
    if (input.kind !== 'refund') {
      const notified = await operationVerdictOf(orm.em.fork(), input.transactionId, input.operationId);
      if (notified)
        return {
          outcome: notified === 'succeeded' ? 'approved' : 'hard_decline',
          providerReference: input.start.providerReference,
          rawCode: `notified_${notified}`,
        };
    }
    const { adapter, call } = await connectorCall(input);
    const found = await heartbeatWhile(() =>
      adapter.lookup(call, {
        operation: input.kind,
        providerReference: input.start.providerReference,
        // What the original request carried: a refund its ref_ id (adapter.refund's reference), others the payment's.
        reference: input.kind === 'refund' ? input.refundId! : input.transactionId,
      }),
    );
    // Nothing found is "not processed" only where the provider's read would already show it.
    const looked = readLookup(adapter, input.kind, found, input.sinceSentMs);
    if (looked.status === 'unknown') {
      // A capture or void no one could tell by its deadline is the merchant's to check (nothing moves; the lookups
      // go on, so the provider's notification still finishes it).
      if (input.kind !== 'refund' && input.sinceSentMs >= vault!.inDoubtAfterMs)
        await inTransaction((em) => escalateOperationInDoubt(em, input));
      return null;
    }
    if (looked.status === 'not_found')
      return { outcome: 'network_error', providerReference: null, rawCode: NOT_PROCESSED };
    const { outcome, providerReference, rawCode } = looked.result;
    return { outcome, providerReference, rawCode };
  };

  return {
    /** Checks and reserves the move under the row lock, or returns the 422 code (see beginOperation). */
    async beginOperation(input: OperationInput): Promise<OperationStart> {
      return inTransaction((em) => beginOperation(em, input));
    },

    /** The provider call; idempotency key = the operation's workflow id, so a retried activity is replayed, not repeated. */
    async providerOperation(input: ProviderOperationInput): Promise<OperationAnswer> {
      const { adapter, call } = await connectorCall(input);
      const { providerReference, amount, currency } = input.start;
      const result = await heartbeatWhile(() =>
        input.kind === 'capture'
          ? adapter.capture(call, { providerReference, amount, currency })
          : input.kind === 'void'
            ? adapter.void(call, { providerReference })
            : adapter.refund(call, { providerReference, amount, currency, reference: input.refundId! }),
      );
      return { outcome: result.outcome, providerReference: result.providerReference, rawCode: result.rawCode };
    },

    /**
     * An operation whose answer was unknown, looked up at the provider under its own key (never sent again). Its
     * answer as the provider recorded it; 'not_processed' (network_error: nothing happened) when the provider holds
     * nothing under the key; null while the lookup cannot tell (the workflow asks again later).
     */
    lookupOperation: lookUp,

    /**
     * A refund the provider answered pending, asked about again (pendingRefundWorkflow): its result once decided —
     * by the provider's webhook meanwhile (the refund row says so), or by the provider's lookup under the refund's
     * key, whose verdict is settled here like the webhook's — and 'pending' while the provider has not decided or
     * the lookup cannot tell. 'missing': no such refund (nothing to wait for).
     */
    async checkPendingRefund(input: ProviderOperationInput): Promise<PendingRefundCheck> {
      const refund = await orm.em.fork().findOne(RefundSchema, { id: input.refundId! });
      if (!refund) return 'missing';
      if (refund.status !== 'pending') return refund.status;
      const answer = await lookUp({ ...input, sinceSentMs: Date.now() - refund.createdAt.getTime() });
      // The provider answered this refund pending, so "nothing under the key" is a lookup that cannot tell either.
      if (!answer || answer.rawCode === NOT_PROCESSED || !DECIDED.has(answer.outcome)) return 'pending';
      const result = answer.outcome === 'approved' ? 'succeeded' : 'failed';
      await inTransaction((em) =>
        settleRefund(
          em,
          refund.id,
          result,
          answer.providerReference,
          result === 'failed' ? answer.rawCode : null,
          'system',
        ),
      );
      return result;
    },

    /** Returns the transaction's status after the move (for the workflow's TransactionStatus search attribute). */
    async finishOperation(input: FinishOperationInput): Promise<string | null> {
      await inTransaction((em) => finishOperation(em, input));
      const tx = await orm.em.fork().findOne(TransactionSchema, { id: input.transactionId });
      return tx?.status ?? null;
    },
  };
}
