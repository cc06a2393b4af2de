/**
 * The charge-cascade workflow (id transaction-<tx id>): open the transaction, plan the connectors with the routing
 * engine, try them in order — an outcome safe to retry elsewhere moves on to the next connector (is_fallback),
 * anything else stops (a hard decline; an unknown outcome the attempt's lookup could not resolve) — and write the
 * final state. pix/boleto end here as pending; a child settlement workflow
 * (transaction-settlement-<tx id>, abandoned by this one) waits durably for the provider's webhook or the expiry.
 * An attempt left unknown ends here as pending too; a child resolution workflow (transaction-resolution-<tx id>,
 * abandoned) looks it up again, backing off, before the charge is declared failed.
 * History holds ids, amounts and outcomes only: card data and credentials are read inside attemptCharge.
 */
import {
  ActivityFailure,
  CancellationScope,
  condition,
  isCancellation,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { startDetachedChild } from './detached-child';
import {
  shouldTryNextConnector,
  type AttemptInput,
  type AttemptLookup,
  type AttemptResult,
  type TransactionInput,
  type TransactionResult,
  type SettlementSignal,
} from './lib/transaction-types';
import { SEARCH_ATTRIBUTE_KEYS } from './definitions';
import { databaseActivities, localDatabaseActivities, providerActivities } from './lib/transaction-activities';
import {
  transactionResolutionWorkflowId,
  providerEventSignal,
  attemptVerdictKeptSignal,
  settlementWorkflowId,
  type ResolutionInput,
  type SettlementInput,
} from './transaction.shared';
import { finalizeAttemptVerdict, followSettledCharge, setStatus, startSubscription } from './transaction-follow-up';
import { awaitAuthentication } from './transaction-authentication';

const db = databaseActivities();
/** Database-only steps of the cascade (open + plan, unresolved attempts, finalize): no Temporal round trip each. */
const local = localDatabaseActivities();
const provider = providerActivities();

export async function transactionWorkflow(input: TransactionInput): Promise<TransactionResult> {
  const id = input.transactionId;
  const { workflowId, typedSearchAttributes } = workflowInfo();
  // The API's start sets TransactionId and TransactionStatus pending: no visibility write of ours. A start without
  // them (a subscription's renewal) gets them here, in one write.
  if (typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.TransactionId) === undefined)
    upsertSearchAttributes([
      { key: SEARCH_ATTRIBUTE_KEYS.TransactionStatus, value: 'pending' },
      { key: SEARCH_ATTRIBUTE_KEYS.TransactionId, value: [id] },
    ]);
  const finish = async (
    to: 'authorized' | 'pre_authorized' | 'failed',
    extra: Partial<Parameters<typeof db.finalizeTransaction>[0]> = {},
  ) => {
    const failureCode = await local.finalizeTransaction({
      transactionId: id,
      to,
      triggeredBy: 'system',
      key: `${workflowId}:final`,
      ...extra,
    });
    setStatus(to);
    return { transactionId: id, status: to, ...(failureCode ? { failureCode } : {}) };
  };
  // Workflow Math.random is seeded per run: a fair draw for math/random rules that replays identically.
  const opened = await local.openAndPlanCharge({ ...input, randomDraw: Math.random() });
  if (!opened.tokenClaimed) return finish('failed');
  // The merchant's decline table is read by the planning step (so recorded in this history).
  const { attempts, cascade } = opened;
  for (const [index, attempt] of attempts.entries()) {
    const attemptNumber = index + 1;
    const attemptInput: AttemptInput = {
      transactionId: id,
      merchantId: input.merchantId,
      attemptNumber,
      isFallback: index > 0,
      attempt,
      idempotencyKey: `${workflowId}:${attemptNumber}`,
    };
    let result: AttemptResult;
    try {
      result = await provider.attemptCharge(attemptInput);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      // Every try failed around the provider call (worker or database). Unless its outcome was written first,
      // whether the provider charged is unknown, and another connector could charge the customer a second time:
      // the cascade stops and the charge waits pending while its resolution looks the attempt up under its key.
      const recorded = await local.recordUnresolvedAttempt(attemptInput);
      if (!recorded) return awaitResolution(input, attemptInput);
      result = recorded;
    }
    // The provider may have charged and its lookup could not tell: the charge waits pending while its resolution
    // asks again. No other connector is tried meanwhile (it could charge the customer a second time).
    if (result.outcome === 'unknown') return awaitResolution(input, attemptInput);
    // The issuer challenges the buyer (3-D Secure): the charge answers pending with next_action and waits for them.
    if (result.nextAction)
      return awaitAuthentication(input, attemptInput, { ...result, nextAction: result.nextAction });
    if (result.outcome === 'approved') {
      const amount = input.amount;
      const charged = await finish(input.capture ? 'authorized' : 'pre_authorized', {
        successful: { attempt, providerReference: result.providerReference, paymentInstructions: null },
        amountAuthorized: amount,
        amountCaptured: input.capture ? amount : 0,
      });
      if (input.order.recurrence === 'initial') await startSubscription(id, input.capture);
      return charged;
    }
    if (result.outcome === 'pending') {
      await local.finalizeTransaction({
        transactionId: id,
        to: 'pending',
        triggeredBy: 'system',
        key: `${workflowId}:pending`,
        successful: {
          attempt,
          providerReference: result.providerReference,
          paymentInstructions: result.paymentInstructions,
        },
      });
      await startSettlement(id, input.amount, input.capture, result.paymentInstructions?.expires_at);
      return { transactionId: id, status: 'pending' };
    }
    // A hard decline stops (unless the merchant's decline table says otherwise).
    if (!shouldTryNextConnector(result, cascade)) break;
  }
  return finish('failed');
}

/**
 * Leaves the charge pending with its attempt unresolved and starts the attempt's resolution (abandoned: the charge
 * answers `pending` now). Once per transaction (REJECT_DUPLICATE): a re-run charge finds the resolution it started.
 */
async function awaitResolution(input: TransactionInput, attempt: AttemptInput): Promise<TransactionResult> {
  const id = input.transactionId;
  await local.finalizeTransaction({
    transactionId: id,
    to: 'pending',
    triggeredBy: 'system',
    key: `${workflowInfo().workflowId}:pending`,
  });
  const args: ResolutionInput = {
    transactionId: id,
    attemptNumber: attempt.attemptNumber,
    attempt: attempt.attempt,
    amount: input.amount,
    capture: input.capture,
  };
  await startDetachedChild(transactionResolutionWorkflow, transactionResolutionWorkflowId(id), args);
  return { transactionId: id, status: 'pending' };
}

/**
 * Starts the pending charge's settlement child (abandoned: the charge answers now). Once per transaction
 * (REJECT_DUPLICATE): a reset or re-run charge workflow finds the settlement it started, running or decided, and
 * leaves the verdict to it — a decided settlement is never waited out again.
 */
async function startSettlement(
  transactionId: string,
  amount: number,
  capture: boolean,
  expiresAt: unknown,
): Promise<void> {
  await startDetachedChild(asyncSettlementWorkflow, settlementWorkflowId(transactionId), {
    transactionId,
    amount,
    capture,
    expiresAt: typeof expiresAt === 'string' ? expiresAt : null,
  });
}

/** What the provider's answer to a read means for the pending payment (as its webhook would have said it). */
const VERDICT_OF_CHECK = {
  paid: 'payment.succeeded',
  failed: 'payment.failed',
  expired: 'payment.expired',
} as const satisfies Record<string, SettlementSignal['type']>;

/** Waits between asking the provider about a pending payment (the last repeats): within a minute, then backing off. */
export const SETTLEMENT_POLL_DELAYS_MS = [60, 120, 300, 900, 1800, 3600, 6 * 3600].map((s) => s * 1000);

/**
 * Waits for the webhook's verdict (read through `current`) or the deadline, asking the provider how the payment
 * stands after each delay and once more at the deadline, before it is expired. A verdict found by asking is
 * handed to `found`; true when it was. A provider without a read (or a deleted connector) leaves the webhook alone.
 */
async function waitAskingProvider(
  transactionId: string,
  deadline: number,
  found: (verdict: SettlementSignal) => void,
  current: () => SettlementSignal | undefined,
): Promise<boolean> {
  let asking = true;
  for (let tries = 0; ; tries += 1) {
    if (current() !== undefined) return false;
    const now = Date.now();
    if (now < deadline) {
      const delay = SETTLEMENT_POLL_DELAYS_MS[Math.min(tries, SETTLEMENT_POLL_DELAYS_MS.length - 1)];
      const until = asking ? Math.min(now + delay, deadline) : deadline;
      if (await condition(() => current() !== undefined, until - now)) return false;
    }
    if (!asking) return false;
    const check = await provider.checkPendingCharge({ transactionId }).catch((error) => {
      if (!(error instanceof ActivityFailure)) throw error;
      return 'unknown' as const;
    });
    if (current() !== undefined) return false;
    // 'expired': the provider canceled the payment or let it lapse.
    if (check === 'paid' || check === 'failed' || check === 'expired') {
      found({ type: VERDICT_OF_CHECK[check], eventId: `lookup-${tries}` });
      return true;
    }
    if (check === 'unsupported') asking = false;
    // The ask at the deadline was the last one: the payment expires unpaid.
    if (Date.now() >= deadline) return false;
  }
}

/** Waits for the provider's verdict on a pending pix/boleto (signalled by the inbound-webhook endpoint) or its expiry. */
export async function asyncSettlementWorkflow(input: SettlementInput): Promise<TransactionResult> {
  const { workflowId } = workflowInfo();
  let verdict: SettlementSignal | undefined;
  setHandler(providerEventSignal, (signal) => {
    verdict ??= signal;
  });
  const deadline = input.expiresAt ? Date.parse(input.expiresAt) : Date.now() + 7 * 24 * 3600 * 1000;
  let polled: boolean;
  try {
    polled = await waitAskingProvider(
      input.transactionId,
      deadline,
      (found) => (verdict ??= found),
      () => verdict,
    );
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // An operator cancelled the wait (Temporal UI/CLI): the unpaid charge is canceled — the one producer of
    // transaction.canceled. The write must still happen, so it runs outside the cancelled scope.
    await CancellationScope.nonCancellable(() =>
      db.finalizeTransaction({
        transactionId: input.transactionId,
        to: 'canceled',
        triggeredBy: 'system',
        key: `${workflowId}:final`,
      }),
    );
    setStatus('canceled');
    return { transactionId: input.transactionId, status: 'canceled' };
  }
  // Capture intent survives settlement: the provider's "paid" for a manual-capture charge is an authorization.
  const captured = input.capture !== false;
  const paidAs = captured ? 'authorized' : 'pre_authorized';
  const paid = verdict?.type === 'payment.succeeded';
  const to = paid ? paidAs : verdict?.type === 'payment.failed' ? 'failed' : 'expired';
  await db.finalizeTransaction({
    transactionId: input.transactionId,
    to,
    triggeredBy: verdict && !polled ? 'psp_webhook' : 'system',
    key: `${workflowId}:final`,
    ...(paid ? { amountAuthorized: input.amount, amountCaptured: captured ? input.amount : 0 } : {}),
  });
  setStatus(to);
  if (paid) await followSettledCharge(input.transactionId, captured);
  return { transactionId: input.transactionId, status: to };
}

/** Waits between lookups of an unknown attempt (the last repeats): within a minute, then backing off. */
export const RESOLUTION_LOOKUP_DELAYS_MS = [30, 60, 120, 300, 900, 1800].map((s) => s * 1000);
/**
 * How long the charge itself keeps asking before it is declared failed (provider_outcome_unknown) and left to the
 * reconciler, which gives a charge it finds back: long enough for a provider's incident or its notification, short
 * enough that neither the buyer nor a renewal waits on the charge for long.
 */
export const RESOLUTION_HORIZON_MS = 2 * 3600 * 1000;

/**
 * Resolves an attempt its charge left unknown (id transaction-resolution-<tx id>): looks it up under its idempotency key on
 * a backing-off durable timer (a payment notification kept on the attempt counts as the answer, and its arrival wakes
 * the wait: attemptVerdictKeptSignal) until the provider says or the horizon passes. Approved → authorized /
 * pre_authorized by the capture mode, followed as a settled charge; declined or never processed → failed with the
 * attempt's own code. The cascade does not move on to the next connector: by now the buyer has been told `pending` and
 * may have paid again another way, and a late second provider call would be a charge nobody is waiting for. No answer
 * by the horizon → failed provider_outcome_unknown, left to the reconciler (which gives back a charge it finds).
 */
export async function transactionResolutionWorkflow(input: ResolutionInput): Promise<TransactionResult> {
  const { workflowId } = workflowInfo();
  const { transactionId, amount, capture } = input;
  const deadline = Date.now() + RESOLUTION_HORIZON_MS;
  // Set by a notification kept on the attempt; one that arrives during a lookup wakes the next wait at once (the
  // lookup may have read the attempt before the verdict was written).
  let verdictKept = false;
  setHandler(attemptVerdictKeptSignal, () => {
    verdictKept = true;
  });
  let finding: AttemptLookup = { status: 'unknown' };
  for (let tries = 0; finding.status === 'unknown' && Date.now() < deadline; tries += 1) {
    const delay = RESOLUTION_LOOKUP_DELAYS_MS[Math.min(tries, RESOLUTION_LOOKUP_DELAYS_MS.length - 1)];
    await condition(() => verdictKept, Math.min(delay, deadline - Date.now()));
    verdictKept = false;
    finding = await provider
      .lookUpUnknownAttempt({ transactionId, attemptNumber: input.attemptNumber })
      .catch((error): AttemptLookup => {
        if (!(error instanceof ActivityFailure)) throw error;
        return { status: 'unknown' };
      });
  }
  // Decided meanwhile (not by this workflow): nothing to write.
  if (finding.status === 'decided') return { transactionId, status: finding.transactionStatus };
  const approved = finding.status === 'answered' && finding.outcome === 'approved' ? finding : null;
  return finalizeAttemptVerdict({
    transactionId,
    workflowId,
    attempt: input.attempt,
    amount,
    capture,
    approved: approved !== null,
    providerReference: approved?.providerReference ?? null,
  });
}
