/**
 * The subscription's renewal and dunning cycle: what the workflow does when a wake-up is due (a renewal, a trial's
 * end or a dunning retry billed through a child charge-cascade workflow, a renewal's settlement read again, a
 * billing hold checked, a scheduled cancellation, the cycle limit). Renewals run under ids derived from the
 * subscription id, the cycle and the try, started at most once (REJECT_DUPLICATE); what the cycle becomes is read
 * from the stored transaction, never guessed from how the child ended. The cycle never dies of a fault: its
 * activities retry without a limit, and anything else is shown to operators (SubscriptionAttention) and tried again
 * later.
 */
import {
  ApplicationFailure,
  condition,
  executeChild,
  isCancellation,
  log,
  ParentClosePolicy,
  sleep,
  startChild,
  upsertSearchAttributes,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { transactionWorkflow } from './transaction';
import { transactionWorkflowId } from './transaction.shared';
import { transactionOperationWorkflow } from './transaction-operation';
import { operationWorkflowId } from './transaction-operation.shared';
import { SUBSCRIPTION_WORKFLOW, subscriptionWorkflowId, type SubscriptionWorkflow } from './subscription.shared';
import { SEARCH_ATTRIBUTE_KEYS } from './definitions';
import { AUTHENTICATION_LINK_INVALID, CARD_GONE_CODES, dunningRetryAt, isLive } from './lib/subscription-rules';
import type { BilledCharge } from './lib/subscription-state';
import type { Move } from './lib/subscription-moves';
import {
  chargeFailed,
  chargeInDoubt,
  chargeSucceeded,
  expire,
  holdBilling,
  nextWake,
  outageRetry,
  periodEndCancel,
  releaseHold,
  type Wake,
} from './lib/subscription-billing';
import { db, iso, renewalSteps, type SubscriptionRun } from './subscription-run';

/** A wake-up still busy after this long is flagged to operators (SubscriptionAttention = retrying). */
const ATTENTION_AFTER_MS = 10 * 60_000;
/** After a step failed for good, the wake-up is tried again this much later. */
const RETRY_FAILED_WAKE_MS = 60 * 60_000;
/** How long after each read a pending renewal is read again (then every six hours): webhooks usually come first. */
const SETTLEMENT_CHECKS_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000];
const SETTLEMENT_CHECK_MAX_MS = 6 * 60 * 60_000;
/** The decline that asks the customer to authenticate the renewal on-session (one decline vocabulary). */
const AUTHENTICATION_REQUIRED = 'authentication_required';

/** `attend`: runs what is due under the lock; flags it when it takes long, and never lets a failure end the workflow. */
export function subscriptionCycle(run: SubscriptionRun): {
  attend: () => Promise<void>;
  authenticate: (linkId: string) => Promise<{ transactionId: string }>;
} {
  const { schedule, write, keep } = run;

  /** A renewal declined (or its instrument refused before any provider call): dunning, decline-aware. */
  const declined = (orderId: string | null, declineCode: string | null, chargedInstrumentId?: string) => {
    const { state } = run;
    const move = chargeFailed(state, orderId, new Date(run.now()), schedule, declineCode, chargedInstrumentId);
    if (declineCode === AUTHENTICATION_REQUIRED && move.state.status === 'dunning') return askCustomer(move, orderId);
    if (!declineCode || !CARD_GONE_CODES.has(declineCode)) return write(move);
    // A card reported gone (stolen, lost, expired, revoked) needs the customer, whatever becomes of the
    // subscription; the remaining retries would decline too, so only the last one is left for a new instrument.
    const actionRequired = { paymentInstrumentId: state.paymentInstrumentId, reason: declineCode, orderId };
    if (move.state.status !== 'dunning') return write({ ...move, actionRequired });
    return write({ ...move, state: { ...move.state, dunningAttempts: schedule.length - 1 }, actionRequired });
  };

  /**
   * The issuer takes this renewal only with the customer present: dunning goes on as for any decline (its retries
   * may still pass), and the customer gets a link to pay the renewal on-session (payment_method.action_required
   * and an e-mail, with this step). A link not used yet for the same renewal stays the one; a used one is replaced.
   */
  const askCustomer = (move: Move, orderId: string | null) => {
    const cycleNumber = move.state.cyclesCompleted + 1;
    const current = move.state.authentication;
    const startedAt = new Date(move.state.dunningStartedAt!);
    const expiresAt = iso(dunningRetryAt(startedAt, schedule.length - 1, schedule)!.getTime());
    const link =
      current && !current.used && current.cycleNumber === cycleNumber
        ? current
        : { linkId: `sal_${run.steps + 1}`, cycleNumber, expiresAt, used: false };
    const state = { ...move.state, authentication: link };
    if (link === current) return write({ ...move, state });
    const { paymentInstrumentId, currency } = move.state;
    const amount = Math.max(0, move.state.amount + move.state.pendingProration);
    const actionRequired = {
      paymentInstrumentId,
      reason: AUTHENTICATION_REQUIRED,
      orderId,
      link: { linkId: link.linkId, expiresAt: link.expiresAt, amount, currency },
    };
    return write({ ...move, state, actionRequired });
  };

  /**
   * The customer opened the renewal's link (checked by refuseAuthentication under the lock): their on-session
   * charge of the renewal starts as a child that outlives this run, and is followed like a renewal that settles —
   * nothing else is charged while it waits for the customer's challenge. Paid, it pays the renewal.
   */
  const authenticate = async (linkId: string): Promise<{ transactionId: string }> => {
    const { state } = run;
    const proration = state.pendingProration;
    const charged = Math.max(0, state.amount + proration);
    const prepared = await db.prepareRenewal({
      state,
      cycleNumber: state.cyclesCompleted + 1,
      attempt: state.dunningAttempts + 1,
      amount: charged,
      onSessionLinkId: linkId,
    });
    if (!('charge' in prepared) || charged === 0) {
      throw ApplicationFailure.create({
        type: AUTHENTICATION_LINK_INVALID,
        message:
          'refused' in prepared
            ? `The saved card can no longer be charged (${prepared.refused}): add a new payment method to pay this renewal`
            : 'This renewal cannot be paid through the link now',
        nonRetryable: true,
      });
    }
    const { charge } = prepared;
    await startChild(transactionWorkflow, {
      workflowId: transactionWorkflowId(charge.transactionId),
      args: [charge],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: state.merchantId },
        { key: SEARCH_ATTRIBUTE_KEYS.CustomerId, value: state.customerId },
        { key: SEARCH_ATTRIBUTE_KEYS.TransactionStatus, value: 'pending' },
      ],
    });
    const settling = {
      transactionId: charge.transactionId,
      orderId: charge.orderId,
      amount: state.amount,
      proration,
      charged,
      paymentInstrumentId: state.paymentInstrumentId,
      checks: 0,
      checkAt: iso(run.now() + SETTLEMENT_CHECKS_MS[0]),
      onSession: true,
    };
    run.setAttention('settling');
    keep({ ...state, authentication: { ...state.authentication!, used: true }, settling });
    return { transactionId: charge.transactionId };
  };

  /**
   * Applies a renewal charge's stored outcome to the state as it is now (an operation may have run while the
   * charge was pending). Pending: wait for it, nothing else is billed meanwhile. Paid after the subscription
   * ended (cancelled while the charge awaited its verdict): the charge is refunded, never kept.
   */
  const applyOutcome = async (
    transactionId: string,
    billed: BilledCharge & { onSession?: boolean },
    checks: number,
  ) => {
    const ended = !isLive(run.state.status);
    // Paid is the usual verdict: its step is prepared before the read and written with it, in one step (the
    // lock is held, so nothing else moves the state meanwhile). Declined and pending are read alone, as before.
    const paid = !ended ? chargeSucceeded({ ...run.state, settling: null }, billed, new Date(run.now())) : null;
    const paidStep = paid ? run.stepOf(paid) : null;
    const outcome = paidStep
      ? await renewalSteps.settleRenewal({ transactionId, ifPaid: paidStep })
      : await renewalSteps.renewalOutcome(transactionId);
    if (outcome.status === 'pending') {
      const wait = SETTLEMENT_CHECKS_MS[checks] ?? SETTLEMENT_CHECK_MAX_MS;
      if (!run.state.settling) run.setAttention('settling');
      return keep({
        ...run.state,
        settling: { ...billed, transactionId, checks: checks + 1, checkAt: iso(run.now() + wait) },
      });
    }
    if (run.state.settling) run.setAttention(null);
    run.state = { ...run.state, settling: null };
    if (outcome.status === 'paid' && paid) {
      run.steps += 1;
      return run.moved(paid);
    }
    if (outcome.status === 'paid')
      return ended ? refundEndedRenewal(transactionId) : write(chargeSucceeded(run.state, billed, new Date(run.now())));
    if (ended) return keep(run.state);
    if (outcome.status === 'in_doubt') return write(chargeInDoubt(run.state, billed, new Date(run.now())));
    // The customer's own charge failed (authentication failed or abandoned): no dunning step, the schedule goes on.
    if (billed.onSession) return keep(run.state);
    if (outcome.status === 'unprocessed') return retryAfterOutage(transactionId);
    return declined(billed.orderId, outcome.declineCode, billed.paymentInstrumentId);
  };

  /** No issuer judged the card (no route, a processing or network error): no dunning step, tried again soon. */
  const retryAfterOutage = (transactionId: string) => {
    log.warn('renewal charge not processed (no route, or a provider or our error); retrying it soon', {
      subscriptionId: run.state.subscriptionId,
      transactionId,
    });
    return write({ state: outageRetry(run.state, new Date(run.now())), transition: null, events: [] });
  };

  const refundEndedRenewal = async (transactionId: string) => {
    const refundId = await db.givenBackRefundId({ transactionId, reason: 'subscription_ended' });
    const refund = { kind: 'refund' as const, operationId: refundId, refundId, transactionId };
    await executeChild(transactionOperationWorkflow, {
      workflowId: operationWorkflowId(refund),
      args: [{ ...refund, reason: 'subscription_ended', metadata: { subscription_id: run.state.subscriptionId } }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [{ key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: run.state.merchantId }],
    }).catch((error) => log.warn('refund of a renewal paid after its subscription ended', { transactionId, error }));
    keep(run.state);
  };

  /**
   * Bills the cycle due (a renewal, a trial's end or a dunning retry) through a child charge-cascade workflow.
   * Billing holds come first: with one, nothing is charged and nothing cancelled.
   */
  const billUnlessHeld = async () => {
    const { state } = run;
    const amount = state.amount;
    const proration = state.pendingProration;
    const charged = Math.max(0, amount + proration);
    const request = {
      state,
      cycleNumber: state.cyclesCompleted + 1,
      attempt: state.status === 'dunning' ? state.dunningAttempts + 1 : 0,
      ...(state.billingRetry ? { retry: state.billingRetry.tries } : {}),
      amount: charged,
    };
    // One step reads the holds and the charge's inputs.
    const prepared = await renewalSteps.prepareRenewal(request);
    if ('held' in prepared)
      return write({ state: holdBilling(run.state, new Date(run.now())), transition: null, events: [] });
    if (charged === 0)
      return write(chargeSucceeded(run.state, { orderId: null, amount, proration, charged }, new Date(run.now())));
    if ('refused' in prepared) return declined(null, prepared.refused);
    const charge = prepared.charge;
    try {
      await executeChild(transactionWorkflow, {
        workflowId: transactionWorkflowId(charge.transactionId),
        args: [charge],
        // Started at most once: a reset or replayed subscription finds the charge it started and reads its result.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: run.state.merchantId },
          { key: SEARCH_ATTRIBUTE_KEYS.CustomerId, value: run.state.customerId },
          { key: SEARCH_ATTRIBUTE_KEYS.TransactionStatus, value: 'pending' },
        ],
      });
    } catch {
      // Refused as a duplicate, or the charge workflow failed: the stored transaction says what happened.
    }
    const billed = {
      orderId: charge.orderId,
      amount,
      proration,
      charged,
      paymentInstrumentId: run.state.paymentInstrumentId,
    };
    return applyOutcome(charge.transactionId, billed, 0);
  };

  /** The cycle limit: expire, or (renew_after_cycle_limit) expire into a new subscription run by its own workflow. */
  const expireOrRenew = async () => {
    const key = `${run.workflowId}:${run.steps + 1}`;
    const renewed = await db.renewAtCycleLimit({ state: run.state, key, at: iso(run.now()) });
    if (!renewed) return write(expire(run.state));
    run.steps += 1;
    run.state = { ...run.state, status: 'expired' };
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: run.state.status }]);
    run.changed = true;
    // The new subscription runs on the same clock, from this instant (the advance finds it and waits for it too).
    const clock = run.state.testClock;
    const next = clock ? { ...renewed, testClock: { ...clock, reportTo: null } } : renewed;
    await startChild<SubscriptionWorkflow>(SUBSCRIPTION_WORKFLOW, {
      workflowId: subscriptionWorkflowId(renewed.subscriptionId),
      args: [{ state: next, dunningScheduleDays: schedule }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTE_KEYS.OrganizationId, value: renewed.organizationId },
        { key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: renewed.merchantId },
        { key: SEARCH_ATTRIBUTE_KEYS.CustomerId, value: renewed.customerId },
        { key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: renewed.status },
      ],
    });
  };

  const recheckHold = async () => {
    const held = await db.billingHoldOf({ merchantId: run.state.merchantId, offerId: run.state.offerId });
    if (held.length) return write({ state: holdBilling(run.state, new Date(run.now())), transition: null, events: [] });
    await write({ state: releaseHold(run.state, new Date(run.now())), transition: null, events: [] });
    const due = nextWake(run.state, schedule);
    if (due && due.at.getTime() <= run.now() && due.reason !== 'hold_recheck') await act(due);
  };

  const act = async (wake: Wake): Promise<void> => {
    switch (wake.reason) {
      case 'settlement_check': {
        const { transactionId, checks, ...billed } = run.state.settling!;
        return applyOutcome(transactionId, billed, checks);
      }
      case 'hold_recheck':
        return recheckHold();
      case 'period_end_cancel':
        return write(periodEndCancel(run.state));
      case 'cycle_limit':
        return expireOrRenew();
      default:
        return billUnlessHeld();
    }
  };

  const attend = async () => {
    let done = false;
    const work = run.lock.run(async () => {
      // Re-read under the lock: an operation may have moved the subscription while the timer fired.
      const due = nextWake(run.state, schedule);
      if (due && due.at.getTime() <= run.now()) await act(due);
    });
    const finished = work.then(
      () => (done = true),
      () => (done = true),
    );
    try {
      if (!(await condition(() => done, ATTENTION_AFTER_MS))) {
        run.setAttention('retrying');
        await finished;
        run.setAttention(run.state.settling ? 'settling' : null);
      }
      await work;
    } catch (error) {
      if (isCancellation(error)) throw error;
      log.error('subscription step failed; trying again later', { subscriptionId: run.state.subscriptionId, error });
      run.setAttention('failed');
      await sleep(RETRY_FAILED_WAKE_MS);
      run.setAttention(run.state.settling ? 'settling' : null);
    }
  };

  return { attend, authenticate };
}
