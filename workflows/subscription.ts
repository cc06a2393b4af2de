/**
 * One long-lived workflow per subscription (id subscription-<sub id>). It owns time: it sleeps on a durable timer
 * until the next thing due (trial end, renewal, dunning retry, scheduled cancellation, cycle limit) and never
 * polls. Renewals run the charge-cascade workflow as a child under ids derived from the subscription id, the cycle
 * and the try, so a crash never bills a cycle twice. Operations arrive as Updates whose validators apply the state
 * table before they are accepted; every move is written to the read model (sub_ row, sbt_ transitions,
 * subscription.* events) by an activity before the Update answers. One move at a time: operations and wake-ups
 * take the same lock. History stays bounded by continue-as-new, which carries the state and the step counter.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  executeChild,
  ParentClosePolicy,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { chargeWorkflow, chargeWorkflowId } from './charge';
import { SEARCH_ATTRIBUTE_KEYS } from './definitions';
import { databaseActivities } from './lib/payment-activities';
import { CARD_GONE_CODES, DEFAULT_DUNNING_SCHEDULE_DAYS, refuseOperation } from './lib/subscription-rules';
import type { SubscriptionOperation } from './lib/subscription-rules';
import type { SubscriptionState } from './lib/subscription-state';
import {
  chargeFailed,
  chargeSucceeded,
  expire,
  holdBilling,
  nextWake,
  periodEndCancel,
  releaseHold,
  type Wake,
} from './lib/subscription-billing';
import * as moves from './lib/subscription-moves';

const db = databaseActivities();

export const subscriptionWorkflowId = (subscriptionId: string) => `subscription-${subscriptionId}`;

export interface SubscriptionWorkflowInput {
  state: SubscriptionState;
  /** Days after dunning_started_at of each retry; the deployment's setting (default 1, 3, 5, 7). */
  dunningScheduleDays?: number[];
  /** Steps written so far (carried across continue-as-new: step keys stay unique). */
  stepCount?: number;
  /** Continue-as-new after this many steps in one run at the latest (default 500). */
  stepsPerRun?: number;
}

export interface CancelRequest extends moves.Caller {
  atPeriodEnd: boolean;
  reason: string | null;
}
export interface PauseRequest extends moves.Caller {
  reason: string | null;
}
export interface ChangeOfferRequest extends moves.Caller {
  target: moves.TargetOffer;
}
export interface ChangeInstrumentRequest extends moves.Caller {
  paymentInstrumentId: string;
}

// Named as sent on the wire. Each answers with the state after the move (already in the read model).
export const cancelUpdate = defineUpdate<SubscriptionState, [CancelRequest]>('cancel');
export const reactivateUpdate = defineUpdate<SubscriptionState, [moves.Caller]>('reactivate');
export const pauseUpdate = defineUpdate<SubscriptionState, [PauseRequest]>('pause');
export const resumeUpdate = defineUpdate<SubscriptionState, [moves.Caller]>('resume');
export const changeOfferUpdate = defineUpdate<SubscriptionState, [ChangeOfferRequest]>('changeOffer');
export const changePaymentInstrumentUpdate = defineUpdate<SubscriptionState, [ChangeInstrumentRequest]>(
  'changePaymentInstrument',
);

export interface SubscriptionWorkflowView {
  state: SubscriptionState;
  nextWakeAt: string | null;
  nextWakeReason: Wake['reason'] | null;
}
export const viewQuery = defineQuery<SubscriptionWorkflowView>('view');
/** A connector was activated or an offer restored: a held subscription looks again (after the change commits). */
export const billingResumedSignal = defineSignal('billingResumed');
/** How long after billingResumed the workflow looks: the API signals before its own transaction has committed. */
const RESUMED_RECHECK_MS = 60_000;

/** Continue-as-new after this many steps at the latest, even if the server has not suggested it. */
const STEPS_PER_RUN = 500;

export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<string> {
  const schedule = input.dunningScheduleDays ?? [...DEFAULT_DUNNING_SCHEDULE_DAYS];
  const { workflowId } = workflowInfo();
  let state = input.state;
  let steps = input.stepCount ?? 0;
  const firstStep = steps;
  let busy = false;
  let changed = false;

  const write = async (move: moves.Move) => {
    steps += 1;
    const wake = nextWake(move.state, schedule);
    await db.writeSubscriptionStep({
      state: move.state,
      key: `${workflowId}:${steps}`,
      at: new Date().toISOString(),
      transition: move.transition,
      events: move.events,
      actionRequired: move.actionRequired ?? null,
      dunningNextRetryAt: move.state.status === 'dunning' && wake ? wake.at.toISOString() : null,
    });
    state = move.state;
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: state.status }]);
    changed = true;
  };

  /** One move at a time: an operation waits for a renewal in flight (and the other way round). */
  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    await condition(() => !busy);
    busy = true;
    try {
      return await work();
    } finally {
      busy = false;
    }
  };

  const refuse = (operation: SubscriptionOperation) => {
    const refusal = refuseOperation(state, operation);
    if (refusal) throw ApplicationFailure.create({ type: refusal.code, message: refusal.message, nonRetryable: true });
  };

  /** Registers an Update: validated on arrival, validated again once it holds the lock (a renewal may have moved). */
  const operation = <A extends moves.Caller>(
    update: ReturnType<typeof defineUpdate<SubscriptionState, [A]>>,
    operationOf: (args: A) => SubscriptionOperation,
    move: (args: A, now: Date) => moves.Move,
  ) =>
    setHandler(
      update,
      (args: A) =>
        exclusive(async () => {
          refuse(operationOf(args));
          await write(move(args, new Date()));
          return state;
        }),
      { validator: (args: A) => refuse(operationOf(args)) },
    );

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
  );
  operation(
    changePaymentInstrumentUpdate,
    () => 'change_payment_instrument',
    (a, now) => moves.changePaymentInstrument(state, a.paymentInstrumentId, a, now),
  );
  setHandler(billingResumedSignal, () => {
    if (!state.holdCheckAt) return;
    state = { ...state, holdCheckAt: new Date(Date.now() + RESUMED_RECHECK_MS).toISOString() };
    changed = true;
  });
  setHandler(viewQuery, () => {
    const wake = nextWake(state, schedule);
    return { state, nextWakeAt: wake?.at.toISOString() ?? null, nextWakeReason: wake?.reason ?? null };
  });

  /** Bills the cycle due (a renewal, a trial's end or a dunning retry) through a child charge-cascade workflow. */
  const bill = async () => {
    const owed = Math.max(0, state.amount + state.pendingProration);
    if (owed === 0) return write(chargeSucceeded(state, null, 0));
    const input = await db.prepareRenewalCharge({
      state,
      cycleNumber: state.cyclesCompleted + 1,
      attempt: state.status === 'dunning' ? state.dunningAttempts + 1 : 0,
      amount: owed,
    });
    let status = 'failed';
    try {
      ({ status } = await executeChild(chargeWorkflow, {
        workflowId: chargeWorkflowId(input.transactionId),
        args: [input],
        typedSearchAttributes: [
          { key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: state.merchantId },
          { key: SEARCH_ATTRIBUTE_KEYS.CustomerId, value: state.customerId },
          { key: SEARCH_ATTRIBUTE_KEYS.TransactionStatus, value: 'pending' },
        ],
      }));
    } catch {
      // The charge workflow itself failed (not a decline): the cycle is unpaid, and dunning retries it.
    }
    if (status === 'authorized') return write(chargeSucceeded(state, input.orderId, owed));
    const declineCode = await db.lastDeclineCode(input.transactionId);
    const move = chargeFailed(state, input.orderId, new Date(), schedule, declineCode);
    if (declineCode && CARD_GONE_CODES.has(declineCode)) {
      // A card reported gone (stolen, lost, expired) needs the customer, whatever becomes of the subscription;
      // the remaining retries would decline too, so only the last scheduled one is left for a new instrument.
      const actionRequired = {
        paymentInstrumentId: state.paymentInstrumentId,
        reason: declineCode,
        orderId: input.orderId,
      };
      if (move.state.status !== 'dunning') return write({ ...move, actionRequired });
      return write({ ...move, state: { ...move.state, dunningAttempts: schedule.length - 1 }, actionRequired });
    }
    return write(move);
  };

  /** The cycle limit: expire, or (renew_after_cycle_limit) expire into a new subscription run by its own workflow. */
  const expireOrRenew = async () => {
    const key = `${workflowId}:${steps + 1}`;
    const renewed = await db.renewAtCycleLimit({ state, key, at: new Date().toISOString() });
    if (!renewed) return write(expire(state));
    steps += 1;
    state = { ...state, status: 'expired' };
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: state.status }]);
    changed = true;
    await startChild(subscriptionWorkflow, {
      workflowId: subscriptionWorkflowId(renewed.subscriptionId),
      args: [{ state: renewed, dunningScheduleDays: schedule }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTE_KEYS.OrganizationId, value: renewed.organizationId },
        { key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: renewed.merchantId },
        { key: SEARCH_ATTRIBUTE_KEYS.CustomerId, value: renewed.customerId },
        { key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: renewed.status },
      ],
    });
  };

  /** Billing holds come first: with one, nothing is charged and nothing cancelled. */
  const billUnlessHeld = async () => {
    const held = await db.billingHoldOf({ merchantId: state.merchantId, offerId: state.offerId });
    if (held.length) return write({ state: holdBilling(state, new Date()), transition: null, events: [] });
    return bill();
  };

  const recheckHold = async () => {
    const held = await db.billingHoldOf({ merchantId: state.merchantId, offerId: state.offerId });
    if (held.length) return write({ state: holdBilling(state, new Date()), transition: null, events: [] });
    await write({ state: releaseHold(state, new Date()), transition: null, events: [] });
    const due = nextWake(state, schedule);
    if (due && due.at.getTime() <= Date.now() && due.reason !== 'hold_recheck') await act(due);
  };

  const act = async (wake: Wake): Promise<void> => {
    switch (wake.reason) {
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

  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.SubscriptionStatus, value: state.status }]);
  while (state.status !== 'cancelled' && state.status !== 'expired') {
    const wake = nextWake(state, schedule);
    changed = false;
    const timeout = wake ? Math.max(0, wake.at.getTime() - Date.now()) : undefined;
    const interrupted =
      timeout === undefined ? await condition(() => changed) : await condition(() => changed, timeout);
    if (interrupted) continue;
    await exclusive(async () => {
      // Re-read under the lock: an operation may have moved the subscription while the timer fired.
      const due = nextWake(state, schedule);
      if (due && due.at.getTime() <= Date.now()) await act(due);
    });
    if (workflowInfo().continueAsNewSuggested || steps - firstStep >= (input.stepsPerRun ?? STEPS_PER_RUN)) {
      await condition(() => !busy && allHandlersFinished());
      return continueAsNew<typeof subscriptionWorkflow>({
        ...input,
        state,
        dunningScheduleDays: schedule,
        stepCount: steps,
      });
    }
  }
  await condition(allHandlersFinished);
  return state.status;
}
