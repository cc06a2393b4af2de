/**
 * The pending-charge sweep: a transaction still `pending` with no workflow left to finish it — its charge workflow,
 * settlement and resolution all closed (terminated by an operator, failed on a bug, timed out) — would stay pending
 * forever, with the money possibly taken and a renewal's subscription stuck settling. The sweep finds each one and
 * hands it back to the workflow that finishes it: a card waiting for its buyer's 3-D Secure challenge to a new wait
 * (which asks the provider, and past the challenge's expires_at gives up at once: canceled there, abandoned); a
 * payment awaiting its verdict (pix, boleto, a card held for review) to a new settlement; anything else to the
 * charge's resolution, which answers from its last attempt (looked up under its idempotency key when its outcome is
 * unknown). The charge itself is never run again: a restarted cascade could move on to another connector and charge
 * the customer twice.
 */
import { Context } from '@temporalio/activity';
import { WorkflowIdReusePolicy, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { finalizeTransaction, settleAttemptWithoutAnswer } from '../../domain/transactions/transactions.attempt-writes';
import {
  ASYNC_SETTLEMENT_WORKFLOW,
  authenticationWorkflowId,
  TRANSACTION_AUTHENTICATION_WORKFLOW,
  TRANSACTION_RESOLUTION_WORKFLOW,
  transactionResolutionWorkflowId,
  transactionWorkflowId,
  settlementWorkflowId,
  type AsyncSettlementWorkflow,
  type TransactionAuthenticationWorkflow,
  type TransactionResolutionWorkflow,
} from '../../workflows/transaction.shared';
import { SEARCH_ATTRIBUTE_KEYS } from '../../workflows/definitions';
import type { AttemptInput } from '../../workflows/lib/transaction-types';
import {
  readPendingTransactions,
  type PendingTransaction,
} from '../../db/repositories/transaction-attempt-reads.repository';

/** A charge pending for less than this is left to its own workflows (they may be about to start the next one). */
export const ORPHANED_AFTER_MINUTES = 10;

export function createPendingTransactionSweepActivities({
  orm,
  temporalClient,
}: {
  orm: Orm;
  temporalClient?: Client;
}) {
  return {
    /**
     * Hands at most `limit` orphaned pending charges (oldest first; of one merchant when `merchantId` is given, for
     * manual runs) back to a workflow; returns how many it resumed.
     */
    async resumeOrphanedPendingTransactions(input: { limit: number; merchantId?: string | null }): Promise<number> {
      if (!temporalClient) throw new Error('The worker was started without a Temporal client for the sweep');
      const client = temporalClient;
      const pending = await readPendingTransactions(orm.em.fork(), {
        olderThanMinutes: ORPHANED_AFTER_MINUTES,
        merchantId: input.merchantId ?? null,
        limit: input.limit,
      });
      const { taskQueue } = Context.current().info;
      let resumed = 0;
      for (const row of pending) {
        Context.current().heartbeat();
        if (await anyRunning(client, row.id)) continue;
        await resume(orm, client, taskQueue, row);
        resumed += 1;
      }
      return resumed;
    },
  };
}

/** Whether a workflow that finishes this charge is still running (its charge, settlement, resolution or 3DS wait). */
async function anyRunning(client: Client, transactionId: string): Promise<boolean> {
  for (const workflowId of [
    transactionWorkflowId(transactionId),
    settlementWorkflowId(transactionId),
    transactionResolutionWorkflowId(transactionId),
    authenticationWorkflowId(transactionId),
  ]) {
    try {
      if ((await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING') return true;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
  return false;
}

async function resume(orm: Orm, client: Client, taskQueue: string, row: PendingTransaction): Promise<void> {
  const options = {
    taskQueue,
    // The closed run under the same id is the one that died: a new run takes over.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: row.merchant_id },
      { key: SEARCH_ATTRIBUTE_KEYS.TransactionId, value: [row.id] },
      { key: SEARCH_ATTRIBUTE_KEYS.TransactionStatus, value: 'pending' },
    ],
  };
  const amount = Number(row.amount);
  const planned = { connectorId: row.connector_id!, providerSlug: row.provider_slug!, nodeId: row.routing_node_id };
  const challenge = row.three_ds?.status === 'challenged' ? row.three_ds : null;
  if (challenge?.expires_at && row.attempt_number !== null) {
    await client.workflow.start<TransactionAuthenticationWorkflow>(TRANSACTION_AUTHENTICATION_WORKFLOW, {
      ...options,
      workflowId: authenticationWorkflowId(row.id),
      args: [
        {
          transactionId: row.id,
          attemptNumber: row.attempt_number,
          attempt: { ...planned, threeDs: challenge.requested },
          amount,
          capture: row.capture,
          expiresAt: challenge.expires_at,
        },
      ],
    });
    return;
  }
  if (row.attempt_outcome === 'pending') {
    await client.workflow.start<AsyncSettlementWorkflow>(ASYNC_SETTLEMENT_WORKFLOW, {
      ...options,
      workflowId: settlementWorkflowId(row.id),
      args: [{ transactionId: row.id, amount, capture: row.capture, expiresAt: row.expires_at }],
    });
    return;
  }
  if (row.attempt_number === null) {
    // Died before its first provider call: nothing was sent, so nothing was charged.
    await orm.em.fork().transactional((em) =>
      finalizeTransaction(em, {
        transactionId: row.id,
        to: 'failed',
        triggeredBy: 'system',
        key: `${row.workflow_id}:final`,
      }),
    );
    return;
  }
  const attempt: AttemptInput = {
    transactionId: row.id,
    merchantId: row.merchant_id,
    attemptNumber: row.attempt_number,
    isFallback: row.is_fallback ?? false,
    attempt: planned,
    idempotencyKey: `${row.workflow_id}:${row.attempt_number}`,
  };
  // An attempt that died mid-call (started, no outcome) is what a call failing on every try is: unresolved.
  await settleAttemptWithoutAnswer(orm.em.fork(), attempt);
  await client.workflow.start<TransactionResolutionWorkflow>(TRANSACTION_RESOLUTION_WORKFLOW, {
    ...options,
    workflowId: transactionResolutionWorkflowId(row.id),
    args: [
      {
        transactionId: row.id,
        attemptNumber: row.attempt_number,
        attempt: attempt.attempt,
        amount,
        capture: row.capture,
      },
    ],
  });
}
