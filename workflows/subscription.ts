/**
 * One long-lived workflow per subscription (id subscription-<sub id>). It owns time: it sleeps on a durable timer
 * until the next thing due (trial end, renewal, dunning retry, scheduled cancellation, cycle limit, a renewal's
 * settlement) and never polls otherwise. Renewals run the charge-cascade workflow as a child under ids derived from
 * the subscription id, the cycle and the try, started at most once (REJECT_DUPLICATE); what the cycle becomes is
 * read from the stored transaction, never guessed from how the child ended. Operations arrive as Updates whose
 * validators apply the state table before they are accepted; every move is written to the read model (sub_ row,
 * sbt_ transitions, subscription.* events) by an activity before the Update answers. One move at a time, really:
 * operations, signals and wake-ups queue on one FIFO lock. The loop never dies of a fault: its activities retry
 * without a limit, and anything else is shown to operators (SubscriptionAttention) and tried again later.
 * History stays bounded by continue-as-new, which carries the state and the step counter.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  ParentClosePolicy,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  WorkflowIdReusePolicy,
  workflowInfo,
  type defineUpdate,
} from '@temporalio/workflow';
import { transactionWorkflow } from './transaction';
import { transactionWorkflowId } from './transaction.shared';
import { transactionOperationWorkflow } from './transaction-operation';
import { operationWorkflowId } from './transaction-operation.shared';
import {
  billingResumedSignal,
  cancelUpdate,
  changeOfferUpdate,
  changePaymentInstrumentUpdate,
  pauseUpdate,
  reactivateUpdate,
  renewalSettledSignal,
  resumeUpdate,
  subscriptionWorkflowId,
  viewQuery,
  type SubscriptionWorkflowInput,
} from './subscription.shared';
import { SEARCH_ATTRIBUTE_KEYS } from './definitions';
import { fifoLock } from './lib/fifo-lock';
import { advanceClockSignal, clockIdleSignal } from './lib/test-clock-signals';
import { subscriptionActivities } from './lib/subscription-activities';
import {
  CARD_GONE_CODES,
  DEFAULT_DUNNING_SCHEDULE_DAYS,
  isLive,
  refuseOfferChange,
  refuseOperation,
} from './lib/subscription-rules';
import type { OperationRefusal, SubscriptionOperation } from './lib/subscription-rules';
import type { BilledCharge, SubscriptionState, SubscriptionStep } from './lib/subscription-state';
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
import * as moves from './lib/subscription-moves';

const db = subscriptionActivities();

/** How long after billingResumed the workflow looks: the API signals before its own transaction has committed. */
const RESUMED_RECHECK_MS = 60_000;

/** Continue-as-new after this many steps at the latest, even if the server has not suggested it. */
const STEPS_PER_RUN = 500;
/** A wake-up still busy after this long is flagged to operators (SubscriptionAttention = retrying). */
const ATTENTION_AFTER_MS = 10 * 60_000;
/** After a step failed for good, the wake-up is tried again this much later. */
const RETRY_FAILED_WAKE_MS = 60 * 60_000;
/** How long after each read a pending renewal is read again (then every six hours): webhooks usually come first. */
const SETTLEMENT_CHECKS_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000];
const SETTLEMENT_CHECK_MAX_MS = 6 * 60 * 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<string> {
  const schedule = input.dunningScheduleDays ?? [...DEFAULT_DUNNING_SCHEDULE_DAYS];
  const { workflowId } = workflowInfo();
  let state = input.state;
  let steps = input.stepCount ?? 0;
  const firstStep = steps;
  const lock = fifoLock();
  let changed = false;
  /**
   * What time it is for this subscription: workflow (real) time, or on a test clock the clock's time as the
   * workflow has reached it. Everything below that needs "now" asks this; the billing logic is the same either way.
   */
  const now = () => (state.testClock ? Date.parse(state.testClock.now) : Date.now());

  const setAttention = (value: 'retrying' | 'failed' | 'settling' | null) =>
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionAttention, value }]);

  /** The read-model step of a move, numbered next (nothing is written or counted here). */
  const stepOf = (move: moves.Move): SubscriptionStep => {
    const wake = nextWake(move.state, schedule);
    return {
      state: move.state,
      key: `${workflowId}:${steps + 1}`,
      at: iso(now()),
      transition: move.transition,
      events: move.events,
      actionRequired: move.actionRequired ?? null,
      dunningNextRetryAt:
        move.state.status === 'dunning' && wake?.reason === 'dunning_retry' ? wake.at.toISOString() : null,
    };
  };

  /** A written step is the state from now on. */
  const moved = (move: moves.Move) => {
    state = move.state;
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: state.status }]);
    changed = true;
  };

  const write = async (move: moves.Move) => {
    const step = stepOf(move);
    steps += 1;
    await db.writeSubscriptionStep(step);
    moved(move);
  };

  /** In-memory only (nothing the read model shows changes): the loop looks at its next wake-up again. */
  const keep = (next: SubscriptionState) => {
    state = next;
    changed = true;
  };

  const refuse = (refusal: OperationRefusal | null) => {
    if (refusal) throw ApplicationFailure.create({ type: refusal.code, message: refusal.message, nonRetryable: true });
  };

  /**
   * Registers an Update: validated on arrival, and again once it holds the lock — a move ahead of it in the queue
   * may have changed the state (so a repeated pause, double-clicked, is one move and the second gets 422).
   * `refuseArgs` adds what the arguments themselves may make pointless (a change to the offer already held).
   */
  const operation = <A extends moves.Caller>(
    update: ReturnType<typeof defineUpdate<SubscriptionState, [A]>>,
    operationOf: (args: A) => SubscriptionOperation,
    move: (args: A, now: Date) => moves.Move,
    refuseArgs: (args: A) => OperationRefusal | null = () => null,
  ) => {
    const validate = (args: A) => refuse(refuseOperation(state, operationOf(args)) ?? refuseArgs(args));
    setHandler(
      update,
      (args: A) =>
        lock.run(async () => {
          validate(args);
          await write(move(args, new Date(now())));
          return state;
        }),
      { validator: validate },
    );
  };

  operation(
    cancelUpdate,
    (a) => (a.atPeriodEnd ? 'cancel_at_period_end' : 'cancel_now'),
    (a, now) => moves.cancel(state, a, a, now),
  );
  operation(
    reactivateUpdate,
    () => 'reactivate',
    (a) => moves.reactivate(state, a),
  );
  operation(
    pauseUpdate,
    () => 'pause',
    (a) => moves.pause(state, a.reason, a),
  );
  operation(
    resumeUpdate,
    () => 'resume',
    (a, now) => moves.resume(state, a, now),
  );
  operation(
    changeOfferUpdate,
    () => 'change_offer',
    (a, now) => moves.changeOffer(state, a.target, a, now),
    (a) => refuseOfferChange(state, a.target.offerId),
  );
  operation(
    changePaymentInstrumentUpdate,
    () => 'change_payment_instrument',
    (a, now) => moves.changePaymentInstrument(state, a.paymentInstrumentId, a, now),
  );
  // Signals take the lock too: a write in flight would otherwise replace the state they changed.
  setHandler(billingResumedSignal, () =>
    lock.run(async () => {
      if (state.holdCheckAt) keep({ ...state, holdCheckAt: iso(now() + RESUMED_RECHECK_MS) });
    }),
  );
  setHandler(renewalSettledSignal, ({ transactionId }) =>
    lock.run(async () => {
      const settling = state.settling;
      if (settling?.transactionId === transactionId) keep({ ...state, settling: { ...settling, checkAt: iso(now()) } });
    }),
  );
  setHandler(advanceClockSignal, ({ frozenTime, reportTo }) =>
    lock.run(async () => {
      const clock = state.testClock;
      // Not on a clock, or ended (its loop is over): nothing will ever be due, so it is idle at any time.
      if (!clock || !(isLive(state.status) || state.settling)) return reportIdle(reportTo, frozenTime);
      const later = Date.parse(frozenTime) > Date.parse(clock.frozenTime) ? frozenTime : clock.frozenTime;
      // Already past the time asked about: the idle report names that time, or the advance would wait forever.
      const { reportAt: _earlier, ...rest } = clock;
      const asked = later === frozenTime ? {} : { reportAt: frozenTime };
      keep({ ...state, testClock: { ...rest, frozenTime: later, reportTo, ...asked } });
    }),
  );
  setHandler(viewQuery, () => {
    const wake = nextWake(state, schedule);
    return { state, nextWakeAt: wake?.at.toISOString() ?? null, nextWakeReason: wake?.reason ?? null };
  });

  /** A renewal declined (or its instrument refused before any provider call): dunning, decline-aware. */
  const declined = (orderId: string | null, declineCode: string | null, chargedInstrumentId?: string) => {
    const move = chargeFailed(state, orderId, new Date(now()), schedule, declineCode, chargedInstrumentId);
    if (!declineCode || !CARD_GONE_CODES.has(declineCode)) return write(move);
    // A card reported gone (stolen, lost, expired, revoked) needs the customer, whatever becomes of the
    // subscription; the remaining retries would decline too, so only the last one is left for a new instrument.
    const actionRequired = { paymentInstrumentId: state.paymentInstrumentId, reason: declineCode, orderId };
    if (move.state.status !== 'dunning') return write({ ...move, actionRequired });
    return write({ ...move, state: { ...move.state, dunningAttempts: schedule.length - 1 }, actionRequired });
  };

  /**
   * Applies a renewal charge's stored outcome to the state as it is now (an operation may have run while the
   * charge was pending). Pending: wait for it, nothing else is billed meanwhile. Paid after the subscription
   * ended (cancelled while the charge awaited its verdict): the charge is refunded, never kept.
   */
  const applyOutcome = async (transactionId: string, billed: BilledCharge, checks: number) => {
    const ended = !isLive(state.status);
    // Paid is the usual verdict: its step is prepared before the read and written with it, in one activity (the
    // lock is held, so nothing else moves the state meanwhile). Declined and pending are read alone, as before.
    const paid = !ended ? chargeSucceeded({ ...state, settling: null }, billed, new Date(now())) : null;
    const paidStep = paid ? stepOf(paid) : null;
    const outcome = paidStep
      ? await db.settleRenewal({ transactionId, ifPaid: paidStep })
      : await db.renewalOutcome(transactionId);
    if (outcome.status === 'pending') {
      const wait = SETTLEMENT_CHECKS_MS[checks] ?? SETTLEMENT_CHECK_MAX_MS;
      if (!state.settling) setAttention('settling');
      return keep({
        ...state,
        settling: { ...billed, transactionId, checks: checks + 1, checkAt: iso(now() + wait) },
      });
    }
    if (state.settling) setAttention(null);
    state = { ...state, settling: null };
    if (outcome.status === 'paid' && paid) {
      steps += 1;
      return moved(paid);
    }
    if (outcome.status === 'paid')
      return ended ? refundEndedRenewal(transactionId) : write(chargeSucceeded(state, billed, new Date(now())));
    if (ended) return keep(state);
    if (outcome.status === 'in_doubt') return write(chargeInDoubt(state, billed, new Date(now())));
    if (outcome.status === 'unprocessed') return retryAfterOutage(transactionId);
    return declined(billed.orderId, outcome.declineCode, billed.paymentInstrumentId);
  };

  /** No issuer judged the card (no route, a processing or network error): no dunning step, tried again soon. */
  const retryAfterOutage = (transactionId: string) => {
    log.warn('renewal charge not processed (no route, or a provider or our error); retrying it soon', {
      subscriptionId: state.subscriptionId,
      transactionId,
    });
    return write({ state: outageRetry(state, new Date(now())), transition: null, events: [] });
  };

  const refundEndedRenewal = async (transactionId: string) => {
    const refundId = await db.givenBackRefundId({ transactionId, reason: 'subscription_ended' });
    const refund = { kind: 'refund' as const, operationId: refundId, refundId, transactionId };
    await executeChild(transactionOperationWorkflow, {
      workflowId: operationWorkflowId(refund),
      args: [{ ...refund, reason: 'subscription_ended', metadata: { subscription_id: state.subscriptionId } }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [{ key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: state.merchantId }],
    }).catch((error) => log.warn('refund of a renewal paid after its subscription ended', { transactionId, error }));
    keep(state);
  };

  /**
   * Bills the cycle due (a renewal, a trial's end or a dunning retry) through a child charge-cascade workflow.
   * Billing holds come first: with one, nothing is charged and nothing cancelled.
   */
  const billUnlessHeld = async () => {
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
    // One activity reads the holds and the charge's inputs.
    const prepared = await db.prepareRenewal(request);
    if ('held' in prepared) return write({ state: holdBilling(state, new Date(now())), transition: null, events: [] });
    if (charged === 0)
      return write(chargeSucceeded(state, { orderId: null, amount, proration, charged }, new Date(now())));
    if ('refused' in prepared) return declined(null, prepared.refused);
    const charge = prepared.charge;
    try {
      await executeChild(transactionWorkflow, {
        workflowId: transactionWorkflowId(charge.transactionId),
        args: [charge],
        // Started at most once: a reset or replayed subscription finds the charge it started and reads its result.
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: state.merchantId },
          { key: SEARCH_ATTRIBUTE_KEYS.CustomerId, value: state.customerId },
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
      paymentInstrumentId: state.paymentInstrumentId,
    };
    return applyOutcome(charge.transactionId, billed, 0);
  };

  /** The cycle limit: expire, or (renew_after_cycle_limit) expire into a new subscription run by its own workflow. */
  const expireOrRenew = async () => {
    const key = `${workflowId}:${steps + 1}`;
    const renewed = await db.renewAtCycleLimit({ state, key, at: iso(now()) });
    if (!renewed) return write(expire(state));
    steps += 1;
    state = { ...state, status: 'expired' };
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: state.status }]);
    changed = true;
    // The new subscription runs on the same clock, from this instant (the advance finds it and waits for it too).
    const clock = state.testClock;
    const next = clock ? { ...renewed, testClock: { ...clock, reportTo: null } } : renewed;
    await startChild(subscriptionWorkflow, {
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
    const held = await db.billingHoldOf({ merchantId: state.merchantId, offerId: state.offerId });
    if (held.length) return write({ state: holdBilling(state, new Date(now())), transition: null, events: [] });
    await write({ state: releaseHold(state, new Date(now())), transition: null, events: [] });
    const due = nextWake(state, schedule);
    if (due && due.at.getTime() <= now() && due.reason !== 'hold_recheck') await act(due);
  };

  const act = async (wake: Wake): Promise<void> => {
    switch (wake.reason) {
      case 'settlement_check': {
        const { transactionId, checks, ...billed } = state.settling!;
        return applyOutcome(transactionId, billed, checks);
      }
      case 'hold_recheck':
        return recheckHold();
      case 'period_end_cancel':
        return write(periodEndCancel(state));
      case 'cycle_limit':
        return expireOrRenew();
      default:
        return billUnlessHeld();
    }
  };

  /** Runs what is due under the lock; flags it when it takes long, and never lets a failure end the workflow. */
  const attend = async () => {
    let done = false;
    const work = lock.run(async () => {
      // Re-read under the lock: an operation may have moved the subscription while the timer fired.
      const due = nextWake(state, schedule);
      if (due && due.at.getTime() <= now()) await act(due);
    });
    const finished = work.then(
      () => (done = true),
      () => (done = true),
    );
    try {
      if (!(await condition(() => done, ATTENTION_AFTER_MS))) {
        setAttention('retrying');
        await finished;
        setAttention(state.settling ? 'settling' : null);
      }
      await work;
    } catch (error) {
      if (isCancellation(error)) throw error;
      log.error('subscription step failed; trying again later', { subscriptionId: state.subscriptionId, error });
      setAttention('failed');
      await sleep(RETRY_FAILED_WAKE_MS);
      setAttention(state.settling ? 'settling' : null);
    }
  };

  /** Tells a clock's advance that this subscription has done everything due up to frozenTime. */
  const reportIdle = async (reportTo: string, frozenTime: string) => {
    try {
      await getExternalWorkflowHandle(reportTo).signal(clockIdleSignal, {
        subscriptionId: state.subscriptionId,
        frozenTime,
      });
    } catch (error) {
      // The advance is gone (the clock was deleted meanwhile): nobody waits for the answer.
      if (isCancellation(error)) throw error;
    }
  };

  /**
   * The loop's "wait until" on a test clock: the next wake due by the clock's time runs at its own instant (the
   * wake's time, never before the instant already reached); with none left, the subscription stands at the clock's
   * time, tells the advance, and waits for the clock to move (or an operation). No timer: real time plays no part.
   */
  const stepOnClock = async () => {
    changed = false;
    const dueOnClock = () => {
      const wake = nextWake(state, schedule);
      return wake && wake.at.getTime() <= Date.parse(state.testClock!.frozenTime) ? wake : null;
    };
    const clock = state.testClock!;
    if (dueOnClock()) {
      await lock.run(async () => {
        const wake = dueOnClock();
        const at = state.testClock!.now;
        if (wake)
          state = {
            ...state,
            testClock: { ...state.testClock!, now: iso(Math.max(Date.parse(at), wake.at.getTime())) },
          };
      });
      return attend();
    }
    if (clock.now !== clock.frozenTime || clock.reportTo) {
      return lock.run(async () => {
        const current = state.testClock!;
        if (dueOnClock()) return; // the clock moved meanwhile: the loop runs what is now due first
        const { reportAt, ...rest } = current;
        state = { ...state, testClock: { ...rest, now: current.frozenTime, reportTo: null } };
        if (current.reportTo) await reportIdle(current.reportTo, reportAt ?? current.frozenTime);
      });
    }
    await condition(() => changed);
  };

  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: state.status }]);
  if (state.testClock) upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.TestClockId, value: state.testClock.id }]);
  // A cancelled subscription whose last renewal is still settling stays until its outcome is applied.
  while (isLive(state.status) || state.settling) {
    if (workflowInfo().continueAsNewSuggested || steps - firstStep >= (input.stepsPerRun ?? STEPS_PER_RUN)) {
      await condition(() => !lock.busy && allHandlersFinished());
      return continueAsNew<typeof subscriptionWorkflow>({
        ...input,
        state,
        dunningScheduleDays: schedule,
        stepCount: steps,
      });
    }
    if (state.testClock) {
      await stepOnClock();
      continue;
    }
    const wake = nextWake(state, schedule);
    changed = false;
    const timeout = wake ? Math.max(0, wake.at.getTime() - now()) : undefined;
    const interrupted =
      timeout === undefined ? await condition(() => changed) : await condition(() => changed, timeout);
    if (!interrupted) await attend();
  }
  // Ended while a clock's advance waits for it: nothing more is due, ever.
  const clock = state.testClock;
  if (clock?.reportTo) await reportIdle(clock.reportTo, clock.reportAt ?? clock.frozenTime);
  await condition(allHandlersFinished);
  return state.status;
}
