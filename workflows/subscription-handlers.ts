/**
 * The subscription workflow's messages: operations arrive as Updates whose validators apply the state table before
 * they are accepted, and each move is written to the read model before the Update answers; signals (billing
 * resumed, a renewal settled, a test clock's advance), the customer's renewal authentication link and the view query. Every Update and signal takes the run's
 * FIFO lock: a write in flight would otherwise replace the state they changed.
 */
import { ApplicationFailure, setHandler, type defineUpdate } from '@temporalio/workflow';
import {
  authenticateRenewalUpdate,
  billingResumedSignal,
  cancelUpdate,
  changeOfferUpdate,
  changePaymentInstrumentUpdate,
  pauseUpdate,
  reactivateUpdate,
  renewalSettledSignal,
  resumeUpdate,
  viewQuery,
} from './subscription.shared';
import { advanceClockSignal } from './lib/test-clock-signals';
import { isLive, refuseAuthentication, refuseOfferChange, refuseOperation } from './lib/subscription-rules';
import type { OperationRefusal, SubscriptionOperation } from './lib/subscription-rules';
import type { SubscriptionState } from './lib/subscription-state';
import { nextWake } from './lib/subscription-billing';
import * as moves from './lib/subscription-moves';
import { iso, type SubscriptionRun } from './subscription-run';

/** How long after billingResumed the workflow looks: the API signals before its own transaction has committed. */
const RESUMED_RECHECK_MS = 60_000;

const refuse = (refusal: OperationRefusal | null) => {
  if (refusal) throw ApplicationFailure.create({ type: refusal.code, message: refusal.message, nonRetryable: true });
};

export function registerSubscriptionHandlers(
  run: SubscriptionRun,
  authenticate: (linkId: string) => Promise<{ transactionId: string }>,
): void {
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
    const validate = (args: A) => refuse(refuseOperation(run.state, operationOf(args)) ?? refuseArgs(args));
    setHandler(
      update,
      (args: A) =>
        run.lock.run(async () => {
          validate(args);
          await run.write(move(args, new Date(run.now())));
          return run.state;
        }),
      { validator: validate },
    );
  };

  operation(
    cancelUpdate,
    (a) => (a.atPeriodEnd ? 'cancel_at_period_end' : 'cancel_now'),
    (a, now) => moves.cancel(run.state, a, a, now),
  );
  operation(
    reactivateUpdate,
    () => 'reactivate',
    (a) => moves.reactivate(run.state, a),
  );
  operation(
    pauseUpdate,
    () => 'pause',
    (a) => moves.pause(run.state, a.reason, a),
  );
  operation(
    resumeUpdate,
    () => 'resume',
    (a, now) => moves.resume(run.state, a, now),
  );
  operation(
    changeOfferUpdate,
    () => 'change_offer',
    (a, now) => moves.changeOffer(run.state, a.target, a, now),
    (a) => refuseOfferChange(run.state, a.target.offerId),
  );
  operation(
    changePaymentInstrumentUpdate,
    () => 'change_payment_instrument',
    (a, now) => moves.changePaymentInstrument(run.state, a.paymentInstrumentId, a, now),
  );
  // The customer's renewal authentication link: checked on arrival and again under the lock (single use).
  const validateLink = ({ linkId }: { linkId: string }) => refuse(refuseAuthentication(run.state, linkId, run.now()));
  setHandler(
    authenticateRenewalUpdate,
    (request) =>
      run.lock.run(async () => {
        validateLink(request);
        return authenticate(request.linkId);
      }),
    { validator: validateLink },
  );
  setHandler(billingResumedSignal, () =>
    run.lock.run(async () => {
      if (run.state.holdCheckAt) run.keep({ ...run.state, holdCheckAt: iso(run.now() + RESUMED_RECHECK_MS) });
    }),
  );
  setHandler(renewalSettledSignal, ({ transactionId }) =>
    run.lock.run(async () => {
      const settling = run.state.settling;
      if (settling?.transactionId === transactionId)
        run.keep({ ...run.state, settling: { ...settling, checkAt: iso(run.now()) } });
    }),
  );
  setHandler(advanceClockSignal, ({ frozenTime, reportTo }) =>
    run.lock.run(async () => {
      const { state } = run;
      const clock = state.testClock;
      // Not on a clock, or ended (its loop is over): nothing will ever be due, so it is idle at any time.
      if (!clock || !(isLive(state.status) || state.settling)) return run.reportIdle(reportTo, frozenTime);
      const later = Date.parse(frozenTime) > Date.parse(clock.frozenTime) ? frozenTime : clock.frozenTime;
      // Already past the time asked about: the idle report names that time, or the advance would wait forever.
      const { reportAt: _earlier, ...rest } = clock;
      const asked = later === frozenTime ? {} : { reportAt: frozenTime };
      run.keep({ ...state, testClock: { ...rest, frozenTime: later, reportTo, ...asked } });
    }),
  );
  setHandler(viewQuery, () => {
    const wake = nextWake(run.state, run.schedule);
    return { state: run.state, nextWakeAt: wake?.at.toISOString() ?? null, nextWakeReason: wake?.reason ?? null };
  });
}
