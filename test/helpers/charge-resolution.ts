/**
 * A card charge whose attempt stayed unknown answers `pending` while its resolution (transaction-resolution-<tx id>) looks
 * the attempt up on a backing-off timer for two hours. These helpers read that resolution on the test stack's
 * Temporal, and leave a charge as the resolution's horizon leaves it (failed, the attempt still unresolved: the
 * reconciler's work) without waiting two hours of wall time — the horizon itself runs in
 * test/workflows/unknown-outcome-resolution.test.ts on the time-skipping server.
 */
import { expect } from 'chai';
import type { WorkflowHandle } from '@temporalio/client';
import { finalizeTransaction } from '../../domain/transactions/transactions.attempt-writes';
import {
  attemptVerdictKeptSignal,
  transactionResolutionWorkflowId,
  transactionWorkflowId,
} from '../../workflows/transaction.shared';
import { rows } from './db';
import { stack } from './stack';

export const resolutionOf = (transactionId: string): WorkflowHandle =>
  stack().api.deps.temporal.client.workflow.getHandle(transactionResolutionWorkflowId(transactionId));

/**
 * What woke the resolution's waits, in order: 'fired' (its timer) or 'woken' (a kept verdict's signal cut it short).
 * A wait that is still running is not listed.
 */
export async function resolutionWakes(transactionId: string): Promise<Array<'fired' | 'woken'>> {
  const history = await resolutionOf(transactionId).fetchHistory();
  return history
    .events!.map((event) =>
      event.timerFiredEventAttributes ? 'fired' : event.timerCanceledEventAttributes ? 'woken' : null,
    )
    .filter((wake): wake is 'fired' | 'woken' => wake !== null);
}

/**
 * The charge as its resolution leaves it at the two-hour horizon, no answer found: the resolution closed and the
 * transaction failed (provider_outcome_unknown) by the resolution's own final write, the attempt left unresolved for
 * the reconciler. The resolution is terminated first (as if its horizon had passed), so it cannot decide meanwhile.
 */
export async function pastResolutionHorizon(transactionId: string): Promise<void> {
  const resolution = resolutionOf(transactionId);
  await resolution.terminate('test: the resolution reached its horizon without an answer');
  await stack()
    .orm.em.fork()
    .transactional((em) =>
      finalizeTransaction(em, {
        transactionId,
        to: 'failed',
        triggeredBy: 'system',
        key: `${resolution.workflowId}:final`,
      }),
    );
  const [row] = await rows(
    `select t.status, a.error_code from transactions t join transaction_attempts a on a.transaction_id = t.id
      where t.id = ? order by a.attempt_number desc limit 1`,
    [transactionId],
  );
  expect(row).to.deep.equal({ status: 'failed', error_code: 'provider_outcome_unknown' });
}

/**
 * Wakes the charge's resolution now, as a provider's kept verdict would: it looks the attempt up at once instead of
 * at its next timer. Waits for the charge workflow first, which started the resolution before it closed.
 */
export async function wakeResolution(transactionId: string): Promise<void> {
  const { client } = stack().api.deps.temporal;
  await client.workflow.getHandle(transactionWorkflowId(transactionId)).result();
  await resolutionOf(transactionId).signal(attemptVerdictKeptSignal);
  await resolutionOf(transactionId).result();
}

/**
 * The charges' attempts as if sent eight days ago: past the default in-doubt deadline (PROVIDER_OUTCOME_IN_DOUBT_DAYS,
 * 7), so the reconciler's next run escalates those it still cannot tell. A week of wall time, simulated.
 */
export async function pastInDoubtDeadline(transactionIds: string[]): Promise<void> {
  if (transactionIds.length === 0) return;
  await rows(
    `update transaction_attempts set started_at = started_at - interval '8 days' where transaction_id in (?)`,
    [transactionIds],
  );
}
