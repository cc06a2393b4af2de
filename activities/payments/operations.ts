/**
 * Capture, void and refund: begin (under the transaction's row lock: check the move, reserve it — capture_pending,
 * a pending refund row), call the provider, finish. Each step is its own idempotent activity; the 422 codes are
 * decided here, in the same place as the state moves, and handed back to the API that started the workflow.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm';
import { RefundSchema, TransactionSchema, type Transaction } from '../../db/entities';
import { loadConnectorSecrets } from '../../domain/connectors/connectors.secrets';
import { applyTransactionMove, releaseOperationOwner } from '../../domain/transactions/transactions.transitions';
import { canApply } from '../../domain/transactions/transactions.state-table';
import { recordRefundReference, settleRefund } from '../../domain/transactions/transactions.refunds';
import { recordEvent } from '../../domain/events/events.outbox';
import { presentRefund } from '../../domain/transactions/transactions.presenter';
import type { VaultSettings } from '../vault';
import { heartbeatWhile } from './heartbeat';
import type { Outcome } from '../../domain/connectors/connector';
import { OPERATION_IN_PROGRESS, type OperationInput, type OperationStart } from '../../workflows/lib/charge-types';

const rejection = (code: string, message: string): OperationStart => ({ ok: false, code, message });

/** Which 422 a capture or void gets from each state (null: allowed). */
function captureOrVoidProblem(tx: Transaction, kind: 'capture' | 'void'): OperationStart | null {
  if (canApply(tx.status, kind === 'capture' ? 'capture_requested' : 'void_succeeded')) return null;
  if (tx.status === 'voided') return rejection('TRANSACTION_ALREADY_VOIDED', 'The transaction was voided');
  if (tx.amountCaptured > 0) {
    return rejection('TRANSACTION_ALREADY_CAPTURED', 'The transaction was already captured');
  }
  return rejection(
    'INVALID_STATE_TRANSITION',
    `A transaction that is ${tx.status} cannot be ${kind === 'capture' ? 'captured' : 'voided'}`,
  );
}

/** Captured minus refunded minus refunds still pending: what a new refund may take. */
async function refundableBalance(em: EntityManager, tx: Transaction): Promise<number> {
  const [row] = await em.execute<Array<{ pending: string }>>(
    `select coalesce(sum(amount), 0) as pending from refunds where transaction_id = ? and status = 'pending'`,
    [tx.id],
  );
  return tx.amountCaptured - tx.amountRefunded - Number(row.pending);
}

type ProviderOperationInput = OperationInput & { start: Extract<OperationStart, { ok: true }>; idempotencyKey: string };
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

  const lookUp = async (input: ProviderOperationInput): Promise<OperationAnswer | null> => {
    const { adapter, call } = await connectorCall(input);
    const looked = await heartbeatWhile(() =>
      adapter.lookup(call, { operation: input.kind, providerReference: input.start.providerReference }),
    );
    if (looked.status === 'unknown') return null;
    if (looked.status === 'not_found')
      return { outcome: 'network_error', providerReference: null, rawCode: NOT_PROCESSED };
    const { outcome, providerReference, rawCode } = looked.result;
    return { outcome, providerReference, rawCode };
  };

  return {
    async beginOperation(input: OperationInput): Promise<OperationStart> {
      return inTransaction(async (em) => {
        const tx = await em.findOne(
          TransactionSchema,
          { id: input.transactionId },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        if (!tx) return rejection('RESOURCE_NOT_FOUND', 'No such transaction');
        if (input.kind === 'refund') {
          // A retried begin finds its own refund row and carries on.
          const existing = await em.findOne(RefundSchema, { id: input.refundId! });
          if (existing)
            return {
              ok: true,
              amount: existing.amount,
              currency: tx.currency,
              connectorId: tx.connectorId!,
              providerReference: tx.providerReference!,
            };
          if (tx.status === 'refunded')
            return rejection('TRANSACTION_ALREADY_REFUNDED', 'The transaction was already fully refunded');
          if (!canApply(tx.status, 'refund_requested')) {
            return rejection('INVALID_STATE_TRANSITION', `A transaction that is ${tx.status} cannot be refunded`);
          }
          const balance = await refundableBalance(em, tx);
          const amount = input.amount ?? balance;
          if (balance <= 0)
            return rejection(
              'TRANSACTION_ALREADY_REFUNDED',
              'Nothing is left to refund (pending refunds count against the balance)',
            );
          if (amount > balance) return rejection('REFUND_EXCEEDS_BALANCE', `At most ${balance} can be refunded`);
          const refund = em.create(RefundSchema, {
            id: input.refundId!,
            organizationId: tx.organizationId,
            merchantId: tx.merchantId,
            transactionId: tx.id,
            amount,
            currency: tx.currency,
            status: 'pending',
            reason: input.reason ?? null,
            providerReference: null,
            errorCode: null,
            metadata: input.metadata ?? null,
            createdAt: new Date(),
            updatedAt: new Date(),
          });
          await em.flush();
          await recordEvent(em, {
            organizationId: tx.organizationId,
            merchantId: tx.merchantId,
            type: 'transaction.refund_created',
            object: presentRefund(refund),
          });
          await applyTransactionMove(em, tx.id, {
            event: 'refund_requested',
            triggeredBy: 'api',
            key: `${input.operationId}:begin`,
          });
          return {
            ok: true,
            amount,
            currency: tx.currency,
            connectorId: tx.connectorId!,
            providerReference: tx.providerReference!,
          };
        }
        const amount = input.kind === 'capture' ? (input.amount ?? tx.amountAuthorized) : tx.amountAuthorized;
        const start = {
          ok: true as const,
          amount,
          currency: tx.currency,
          connectorId: tx.connectorId!,
          providerReference: tx.providerReference!,
        };
        // A retried begin of the operation that owns the move carries on with what it reserved.
        if (tx.pendingOperationId === input.operationId) return start;
        // Another capture or void is under way (capture_pending without an owner predates owners: same answer).
        // Letting this one through would reach the provider a second time, under another idempotency key.
        if (tx.pendingOperationId || tx.status === 'capture_pending') {
          return rejection(
            OPERATION_IN_PROGRESS,
            'Another capture or void of this transaction is in progress; read the transaction once it finishes',
          );
        }
        const problem = captureOrVoidProblem(tx, input.kind);
        if (problem) return problem;
        if (amount > tx.amountAuthorized)
          return rejection('CAPTURE_EXCEEDS_AUTHORIZED', `At most ${tx.amountAuthorized} can be captured`);
        tx.pendingOperationId = input.operationId;
        await em.flush();
        if (input.kind === 'capture') {
          await applyTransactionMove(em, tx.id, {
            event: 'capture_requested',
            triggeredBy: 'api',
            key: `${input.operationId}:begin`,
          });
        }
        return start;
      });
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
      const answer = await lookUp(input);
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
    async finishOperation(
      input: OperationInput & {
        start: Extract<OperationStart, { ok: true }>;
        outcome: Outcome;
        providerReference: string | null;
        rawCode: string | null;
      },
    ): Promise<string | null> {
      await inTransaction(async (em) => {
        const key = `${input.operationId}:finish`;
        // No definitive answer: nothing moves. The capture stays capture_pending (its owner kept, so no second
        // capture or void reaches the provider under another key), the refund pending; the workflow looks it up.
        if (input.outcome === 'unknown') return;
        // Released in the same database transaction as the move it guarded (before loading the row, so the
        // entity the move flushes already holds the cleared owner).
        await releaseOperationOwner(em, input.transactionId, input.operationId);
        const approved = input.outcome === 'approved';
        if (input.kind === 'capture') {
          await applyTransactionMove(
            em,
            input.transactionId,
            approved
              ? {
                  event: 'capture_succeeded',
                  triggeredBy: 'system',
                  key,
                  patch: { amountCaptured: input.start.amount },
                }
              : { event: 'capture_refused', triggeredBy: 'system', key },
          );
          return;
        }
        if (input.kind === 'void') {
          if (approved)
            await applyTransactionMove(em, input.transactionId, {
              event: 'void_succeeded',
              triggeredBy: 'system',
              key,
            });
          return;
        }
        if (approved) await settleRefund(em, input.refundId!, 'succeeded', input.providerReference, null, 'system');
        else if (input.outcome === 'pending') await recordRefundReference(em, input.refundId!, input.providerReference);
        // A decline, or a refund the provider refused unprocessed (processing_error) or never received
        // (network_error, not_processed): nothing was refunded, so the refund fails rather than stay pending forever.
        else await settleRefund(em, input.refundId!, 'failed', input.providerReference, input.rawCode, 'system');
      });
      const tx = await orm.em.fork().findOne(TransactionSchema, { id: input.transactionId });
      return tx?.status ?? null;
    },
  };
}
