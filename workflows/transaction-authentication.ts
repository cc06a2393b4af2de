/**
 * A card charge the issuer challenges (3-D Secure) waits for its buyer, durably, in its own workflow
 * (transaction-authentication-<tx id>, started by the charge as an abandoned child, so the charge answers `pending`
 * with next_action at once). It asks the provider how the challenge went when the return endpoint or the provider's
 * webhook signals (authenticationReturned, with what the buyer's return carried — Adyen's redirectResult — and what
 * the notification said), and on a backing-off timer should neither arrive; at expires_at it gives
 * up: the payment is canceled at the provider and the charge fails authentication_abandoned. A worker restart
 * replays the wait from history; a return after the deadline finds the workflow closed and changes nothing.
 * The charge does not cascade from here: the buyer authenticated (or failed) with this connector, and another one
 * would have to challenge them again.
 */
import { ActivityFailure, condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { startDetachedChild } from './detached-child';
import type { Activities } from '../activities';
import type { AuthenticationCheck } from '../activities/transactions/authentication';
import type { AttemptInput, AttemptResult, TransactionInput, TransactionResult } from './lib/transaction-types';
import type { NextAction } from './lib/three-ds';
import { localDatabaseActivities, providerActivities } from './lib/transaction-activities';
import {
  authenticationReturnedSignal,
  authenticationWorkflowId,
  waitingForQuery,
  type AuthenticationInput,
  type AuthenticationReturn,
} from './transaction.shared';
import { finalizeAttemptVerdict, setStatus } from './transaction-follow-up';

const local = localDatabaseActivities();
const provider = providerActivities();
/**
 * Giving up at the deadline must happen however long the provider is down (a charge cannot stay pending past its
 * challenge), so it retries without a limit, backing off to every five minutes; its cancel is idempotent.
 */
const abandoning = proxyActivities<Activities>({
  startToCloseTimeout: '45 seconds',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** Waits between lookups while no signal arrives (the last repeats): the buyer usually returns within minutes. */
export const AUTHENTICATION_LOOKUP_DELAYS_MS = [60, 120, 300].map((s) => s * 1000);

/** TransactionStatus of a charge waiting for its buyer's challenge (the API's status stays `pending`). */
export const ACTION_REQUIRED_STATUS = 'action_required';

/**
 * The charge's step when its attempt came back challenged: the transaction goes `pending` with the provider's
 * payment, transaction.action_required is recorded, and the wait starts (once per transaction: a re-run charge
 * finds the wait it started).
 */
export async function awaitAuthentication(
  input: TransactionInput,
  attempt: AttemptInput,
  result: AttemptResult & { nextAction: NextAction },
): Promise<TransactionResult> {
  const id = input.transactionId;
  await local.finalizeTransaction({
    transactionId: id,
    to: 'pending',
    triggeredBy: 'system',
    key: `${workflowInfo().workflowId}:pending`,
    successful: { attempt: attempt.attempt, providerReference: result.providerReference, paymentInstructions: null },
  });
  await local.announceActionRequired({ transactionId: id, attemptNumber: attempt.attemptNumber });
  const args: AuthenticationInput = {
    transactionId: id,
    attemptNumber: attempt.attemptNumber,
    attempt: attempt.attempt,
    amount: input.amount,
    capture: input.capture,
    expiresAt: result.nextAction.expires_at,
  };
  await startDetachedChild(transactionAuthenticationWorkflow, authenticationWorkflowId(id), args);
  return { transactionId: id, status: 'pending' };
}

export async function transactionAuthenticationWorkflow(input: AuthenticationInput): Promise<TransactionResult> {
  const { workflowId } = workflowInfo();
  const { transactionId, attemptNumber, capture, amount } = input;
  const ref = { transactionId, attemptNumber };
  const deadline = Date.parse(input.expiresAt);
  let returned = false;
  let lookups = 0;
  // What the buyer's return and the provider's notification said, kept for every later look (the latest of each).
  const heard: AuthenticationReturn = {};
  setHandler(authenticationReturnedSignal, (back) => {
    returned = true;
    if (back?.returnParams && Object.keys(back.returnParams).length > 0) heard.returnParams = back.returnParams;
    if (back?.notified) heard.notified = back.notified;
  });
  setHandler(waitingForQuery, () => ({
    type: 'three_ds_challenge',
    attemptNumber,
    expiresAt: input.expiresAt,
    lookups,
  }));
  setStatus(ACTION_REQUIRED_STATUS);
  let check: AuthenticationCheck = { status: 'waiting' };
  for (let tries = 0; check.status === 'waiting' && Date.now() < deadline; tries += 1) {
    const delay = AUTHENTICATION_LOOKUP_DELAYS_MS[Math.min(tries, AUTHENTICATION_LOOKUP_DELAYS_MS.length - 1)];
    await condition(() => returned, Math.min(delay, deadline - Date.now()));
    returned = false;
    // At the deadline the last look is the abandoning step's own.
    if (Date.now() >= deadline) break;
    lookups += 1;
    check = await provider.checkAuthentication({ ...ref, ...heard }).catch((error): AuthenticationCheck => {
      if (!(error instanceof ActivityFailure)) throw error;
      return { status: 'waiting' };
    });
  }
  if (check.status === 'waiting') check = await abandoning.abandonAuthentication({ ...ref, ...heard });
  // Decided meanwhile (not by this workflow): nothing to write.
  if (check.status === 'decided') return { transactionId, status: check.transactionStatus };
  return finalizeAttemptVerdict({
    transactionId,
    workflowId,
    attempt: input.attempt,
    amount,
    capture,
    approved: check.outcome === 'approved',
    providerReference: check.providerReference,
  });
}
