/**
 * The subscription engine's model-based test (ARCHITECTURE.md, "Money state machines"): seeded random
 * sequences of operations (pause, resume, cancel now / at period end, reactivate, change offer, change or revoke
 * the instrument), renewal outcomes (approve, decline, card gone, 5xx resolved by lookup, an approval whose answer
 * was lost, a slow provider), operations sent at once, time jumps, a database outage, the connector's circuit opened
 * and later closed (renewals fall due with no route), and a quarter of the sequences on a test clock (jumps are
 * advances), run against the real workflow, activities, database and sandbox on the time-skipping server. After
 * every step the invariants are checked against a small reference model (the state table and the expected result of
 * each accepted move), with: each cycle paid at most once, no dunning step without the issuer declining the card,
 * and no live subscription left with nothing (no timer, no clock advance) that can move it but an operation. A
 * renewal the issuer takes only with the customer present (authentication_required) asks the customer, who
 * authenticates, fails or ignores the link: the renewal is paid once, or dunning goes on as it stood. Between clock
 * advances "the next renewal fails" is armed at random (POST /test-clocks/:id/subscriptions/:sub/fail-next-renewal):
 * the first charge to reach the provider after it, and only it, declines with its failure_code and dunning follows;
 * on a subscription in real time the arming is a 409 that changes nothing.
 *
 * CI runs MODEL_RUNS sequences (default 4); `npm run test:model -- --runs 500` runs more, `--seed N` one of them.
 * A failure names its seed and step, and replays exactly with `--seed`.
 */
import { expect } from 'chai';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  EventSchema,
  PaymentInstrumentSchema,
  SubscriptionTransitionSchema,
  TransactionAttemptSchema,
  TransactionSchema,
} from '../../db/entities';
import { openOrm, type Orm } from '../../db/orm';
import { type subscriptionWorkflow } from '../../workflows/subscription';
import {
  authenticateRenewalUpdate,
  cancelUpdate,
  changeOfferUpdate,
  changePaymentInstrumentUpdate,
  pauseUpdate,
  reactivateUpdate,
  resumeUpdate,
  viewQuery,
  type SubscriptionWorkflowView,
} from '../../workflows/subscription.shared';
import type { TargetOffer } from '../../workflows/lib/subscription-moves';
import {
  isLive,
  refuseAuthentication,
  refuseOfferChange,
  refuseOperation,
  type SubscriptionOperation,
} from '../../workflows/lib/subscription-rules';
import { advanceClockSignal } from '../../workflows/lib/test-clock-signals';
import { api } from '../helpers/http';
import { rows } from '../helpers/db';
import {
  RENEWAL_FAILURE_CARDS,
  type RenewalFailureCode,
} from '../../domain/payment-instruments/payment-instruments.sandbox-cards';
import { TEST_CARDS } from '../../sandbox/cards';
import { connectorsPath } from '../helpers/connectors';
import { useSubscriptionWorkflows } from '../helpers/subscription-workflows';
import { stack } from '../helpers/stack';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { override } from '../helpers/transactions';
import { accountOf, ledger } from '../helpers/sandbox';
import { saveCard, CARDS } from '../helpers/vault';
import { offerTarget, storedSubscription, subscribed, type Subscribed } from '../helpers/subscriptions';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RUNS = Number(process.env.MODEL_RUNS ?? 4);
const FIRST_SEED = Number(process.env.MODEL_SEED ?? 1);
const STEPS = Number(process.env.MODEL_STEPS ?? 10);
const admin = { triggeredBy: 'admin' as const, actor: null };

/** mulberry32: a small seeded generator, so a sequence replays exactly from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (p: number) => next() < p,
  };
}

type Op =
  | { kind: 'pause' | 'resume' | 'cancel_now' | 'cancel_at_period_end' | 'reactivate' | 'change_instrument' }
  | { kind: 'change_offer'; target: TargetOffer };

type Step =
  | { kind: 'op'; op: Op }
  | { kind: 'concurrent'; ops: Op[] }
  /** The next renewal falls due on a slow provider, and the operations are sent while its charge is in flight. */
  | { kind: 'during_renewal'; ops: Op[] }
  | { kind: 'jump'; ms: number | 'next_wake' }
  | { kind: 'outcome'; scenario: string; times: number }
  | { kind: 'revoke_instrument' }
  | { kind: 'db_outage'; ms: number }
  /** The connector's circuit (the merchant's only one) opened or closed by hand: open means no route at all. */
  | { kind: 'circuit'; state: 'open' | 'closed' }
  /**
   * The customer asked to authenticate a renewal (a renewal declined authentication_required) opens the link and
   * authenticates (the on-session charge approves), fails the challenge, or ignores it.
   */
  | { kind: 'customer'; answer: 'authenticates' | 'fails' | 'ignores' }
  /**
   * "The next renewal fails" armed through the API (POST /test-clocks/:id/subscriptions/:sub/fail-next-renewal, code
   * null: the default insufficient_funds): on a clock's subscription the next renewal charge declines so; on one in
   * real time (against another clock of the merchant) a 409 that arms nothing.
   */
  | { kind: 'fail_next_renewal'; code: RenewalFailureCode | null };

const OPERATION_OF: Record<Op['kind'], SubscriptionOperation> = {
  pause: 'pause',
  resume: 'resume',
  cancel_now: 'cancel_now',
  cancel_at_period_end: 'cancel_at_period_end',
  reactivate: 'reactivate',
  change_instrument: 'change_payment_instrument',
  change_offer: 'change_offer',
};

const PAID = new Set(['authorized', 'refunded', 'partially_refunded', 'refund_pending', 'charged_back']);
/** Dunning's decline codes for an instrument refused before any provider call (the customer's to replace). */
const INSTRUMENT_REFUSALS = new Set(['payment_instrument_revoked', 'expired_card']);
/** Where a clock's advance would report to: none waits in this test (the workflow tolerates that). */
const NO_ADVANCE = 'subscription-model-no-advance';
/** Transitions that fire exactly one event of this type (the rest fire none, or are checked by count below). */
const EVENT_OF_TRANSITION: Record<string, string> = {
  pause: 'subscription.paused',
  resume: 'subscription.resumed',
  dunning_entry: 'subscription.dunning',
  upgrade: 'subscription.upgraded',
  downgrade: 'subscription.downgraded',
  payment_method_change: 'subscription.payment_method_changed',
  expiration: 'subscription.expired',
};

/** A sequence on a test clock (a real one: the customer is on it): its id, and its time as advanced so far. */
interface Clock {
  id: string;
  frozenTime: number;
}

/** The sandbox scenario each failure card plays (its ledger reason when the card, not an override, answered). */
const FAILURE_SCENARIO = Object.fromEntries(
  Object.entries(RENEWAL_FAILURE_CARDS).map(([code, number]) => [
    code,
    TEST_CARDS.find((card) => card.number === number)!.scenario,
  ]),
);
const FAILURE_CODES = Object.keys(RENEWAL_FAILURE_CARDS) as RenewalFailureCode[];
const DEFAULT_FAILURE_CODE: RenewalFailureCode = 'insufficient_funds';

/**
 * "The next renewal fails" as the sequence armed it: the other clock a subscription in real time is refused on, and
 * the provider's ledger length when the failure now waiting was first armed (null: none waits).
 */
interface Armed {
  otherClockId: string | null;
  since: number | null;
}

/** A test clock of the merchant (POST /test-clocks) at `at`. */
async function createClock(sub: Subscribed, at: number): Promise<string> {
  const res = await api.post('/test-clocks', {
    key: sub.tenant.merchant_secret_key,
    body: { frozen_time: new Date(at).toISOString(), name: 'Subscription model' },
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.data.id;
}

describe('Subscription model: seeded random sequences keep the invariants (time-skipping test server)', () => {
  const { server, serverNow, worker, start } = useSubscriptionWorkflows('test-subscription-model');

  // Seeds that once found a defect run every time (326: an override's charge lost behind a scheduled cancel).
  const REGRESSION_SEEDS = process.env.MODEL_SEED ? [] : [326];
  const seeds = [...Array.from({ length: RUNS }, (_, i) => FIRST_SEED + i), ...REGRESSION_SEEDS];
  for (const seed of seeds) {
    it(`seed ${seed}: every step keeps the invariants`, async function () {
      this.timeout(10 * 60_000);
      await runSequence(seed);
    });
  }

  async function runSequence(seed: number) {
    const random = prng(seed);
    // The features added later draw from a generator of their own: the main sequence of a seed stays what it was.
    const extra = prng(seed + 0x5eed);
    const sub = await subscribed(await serverNow());
    const targets = await offerTargets(sub);
    // "The next renewal fails" draws from one more generator, so the other features' draws stay what they were.
    const arming = prng(seed + 0xfa11);
    const clock: Clock | null = extra.chance(0.25)
      ? { id: await createClock(sub, Date.parse(sub.state.periodStart)), frozenTime: Date.parse(sub.state.periodStart) }
      : null;
    if (clock) {
      const at = new Date(clock.frozenTime).toISOString();
      // The customer is on the clock, as a subscription started on one has it: its renewals are the clock's.
      await rows('update customers set test_clock_id = ? where id = ?', [clock.id, sub.customerId]);
      sub.state = { ...sub.state, testClock: { id: clock.id, now: at, frozenTime: at, reportTo: null } };
    }
    const armed: Armed = { otherClockId: null, since: null };
    let circuitOpen = false;
    const proxy: { current: TcpProxy } = { current: await startTcpProxy(stack().databasePort) };
    const url = new URL(stack().config.databaseUrl);
    url.port = String(proxy.current.port);
    const orm = await openOrm(url.toString());
    const handle = await start(sub);
    const steps: Step[] = [];
    try {
      await (
        await worker(undefined, orm)
      ).runUntil(async () => {
        let view = await quiet(handle, clock);
        for (let index = 0; index < STEPS; index++) {
          // Now and then the circuit flips before the step (opened, then closed again some steps later).
          const flip: Step | null = extra.chance(0.15)
            ? { kind: 'circuit', state: circuitOpen ? 'closed' : 'open' }
            : null;
          if (flip?.kind === 'circuit') circuitOpen = flip.state === 'open';
          // Now and then the issuer demands authentication of the next renewal; a customer asked answers (or not).
          const asked = view.state.authentication && !view.state.authentication.used && view.state.status === 'dunning';
          const issuer: Step | null = extra.chance(0.1)
            ? { kind: 'outcome', scenario: 'authentication_required', times: 1 + Math.floor(extra.next() * 2) }
            : null;
          const customer: Step | null =
            asked && extra.chance(0.6)
              ? {
                  kind: 'customer',
                  answer: extra.pick(['authenticates', 'authenticates', 'fails', 'ignores'] as const),
                }
              : null;
          const arm: Step | null = arming.chance(0.15)
            ? { kind: 'fail_next_renewal', code: arming.chance(0.3) ? null : arming.pick(FAILURE_CODES) }
            : null;
          const drawn = ([flip, issuer, customer, arm] as Array<Step | null>).filter((x): x is Step => x !== null);
          for (const step of [...drawn, nextStep(random, view, targets)]) {
            steps.push(step);
            const where = `seed ${seed}${clock ? ' (on a test clock)' : ''}, step ${index + 1} ${JSON.stringify(step)} (steps so far: ${JSON.stringify(steps.slice(0, -1))})`;
            const before = await snapshot(sub);
            const at = clock ? clock.frozenTime : Number(await server.env.currentTimeMs());
            const answers = await perform(step, sub, handle, orm, proxy, clock, armed);
            const after = await quiet(handle, clock);
            await checkInvariants(where, sub, step, view, after, answers, before, at);
            await checkRenewalFailures(where, sub, step, answers, view, after, clock, armed);
            view = after;
          }
        }
      });
    } finally {
      await proxy.current.close();
      await orm.close(true);
    }
  }

  /** Three more offers of the subscription's family (dearer monthly, yearly, same price), each under every behaviour. */
  async function offerTargets(sub: Subscribed): Promise<TargetOffer[]> {
    const targets: TargetOffer[] = [];
    for (const [amount, billingCycle] of [
      [1500, 'monthly'],
      [9000, 'yearly'],
      [999, 'monthly'],
    ] as const) {
      const target = await offerTarget(sub, amount, 'next_renew', billingCycle);
      for (const behavior of ['next_renew', 'prorated', 'override'] as const) targets.push({ ...target, behavior });
    }
    return targets;
  }

  function randomOp(random: ReturnType<typeof prng>, targets: TargetOffer[]): Op {
    const kind = random.pick([
      'pause',
      'resume',
      'cancel_now',
      'cancel_at_period_end',
      'reactivate',
      'change_instrument',
      'change_offer',
      'change_offer',
    ] as const);
    return kind === 'change_offer' ? { kind, target: random.pick(targets) } : { kind };
  }

  function nextStep(random: ReturnType<typeof prng>, view: SubscriptionWorkflowView, targets: TargetOffer[]): Step {
    const roll = random.next();
    if (roll < 0.3)
      return { kind: 'jump', ms: random.pick(['next_wake', 'next_wake', HOUR, 3 * DAY, 12 * DAY, 35 * DAY]) };
    if (roll < 0.45) {
      const scenario = random.pick([
        'do_not_honor',
        'do_not_honor',
        'stolen_card',
        'processing_error',
        'approved_no_answer',
        'slow',
      ]);
      return { kind: 'outcome', scenario, times: scenario === 'do_not_honor' ? 1 + Math.floor(random.next() * 3) : 1 };
    }
    if (roll < 0.65) return { kind: 'op', op: randomOp(random, targets) };
    if (roll < 0.75) {
      const ops = [randomOp(random, targets), randomOp(random, targets), randomOp(random, targets)];
      return { kind: 'during_renewal', ops: ops.slice(0, 2 + Math.floor(random.next() * 2)) };
    }
    if (roll < 0.9)
      return {
        kind: 'concurrent',
        ops: [randomOp(random, targets), randomOp(random, targets), randomOp(random, targets)].slice(
          0,
          2 + Math.floor(random.next() * 2),
        ),
      };
    if (roll < 0.96) return { kind: 'revoke_instrument' };
    void view;
    return { kind: 'db_outage', ms: random.pick([HOUR, 5 * HOUR]) };
  }

  /** Advances the sequence's test clock to `at` (never back), as a clock's advance does. */
  async function advanceTo(handle: WorkflowHandle<typeof subscriptionWorkflow>, clock: Clock, at: number) {
    clock.frozenTime = Math.max(clock.frozenTime, at);
    const frozenTime = new Date(clock.frozenTime).toISOString();
    await handle.signal(advanceClockSignal, { frozenTime, reportTo: NO_ADVANCE }).catch((error: unknown) => {
      // An ended subscription is not advanced (a clock's advance moves the live ones only).
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    });
  }

  /** Runs one step; for operations, returns each one's answer (accepted, or the refusal's type). */
  async function perform(
    step: Step,
    sub: Subscribed,
    handle: WorkflowHandle<typeof subscriptionWorkflow>,
    orm: Orm,
    proxy: { current: TcpProxy },
    clock: Clock | null,
    armed: Armed,
  ): Promise<Array<string | null>> {
    switch (step.kind) {
      case 'fail_next_renewal':
        return [await failNextRenewal(step, sub, clock, armed)];
      case 'op':
        return Promise.all([send(step.op, sub, handle)]);
      case 'concurrent':
        return Promise.all(step.ops.map((op) => send(op, sub, handle)));
      case 'during_renewal': {
        const { nextWakeAt, nextWakeReason } = await handle.query(viewQuery);
        const billing = ['renewal', 'trial_end', 'dunning_retry'].includes(nextWakeReason ?? '');
        if (!billing || !nextWakeAt) return Promise.all(step.ops.map((op) => send(op, sub, handle)));
        await override(sub.connector, 'slow', 1);
        const charges = () =>
          stack().orm.em.fork().count(TransactionSchema, { subscriptionId: sub.state.subscriptionId });
        const before = await charges();
        const now = Number(await server.env.currentTimeMs());
        const skipping = clock
          ? advanceTo(handle, clock, Date.parse(nextWakeAt) + 60_000)
          : server.env.sleep(Math.max(0, Date.parse(nextWakeAt) - now) + 60_000);
        const deadline = Date.now() + 10_000;
        // The charge opens its transaction first; a renewal held (no connector) or refused opens none.
        while ((await charges()) === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
        const answers = await Promise.all(step.ops.map((op) => send(op, sub, handle)));
        await skipping;
        return answers;
      }
      case 'jump': {
        const wake = (await handle.query(viewQuery)).nextWakeAt;
        if (clock) {
          const target =
            step.ms === 'next_wake'
              ? wake
                ? Date.parse(wake) + HOUR
                : clock.frozenTime + DAY
              : clock.frozenTime + step.ms;
          await advanceTo(handle, clock, target);
          return [];
        }
        const ms = step.ms === 'next_wake' ? (wake ? Math.max(0, Date.parse(wake) - Date.now()) : DAY) : step.ms;
        const now = Number(await server.env.currentTimeMs());
        const target = step.ms === 'next_wake' && wake ? Date.parse(wake) + HOUR : now + ms;
        await server.env.sleep(Math.max(0, target - now));
        return [];
      }
      case 'outcome':
        await override(sub.connector, step.scenario, step.times);
        return [];
      case 'revoke_instrument': {
        const { paymentInstrumentId } = (await handle.query(viewQuery)).state;
        await orm.em.fork().nativeUpdate(PaymentInstrumentSchema, { id: paymentInstrumentId }, { status: 'revoked' });
        return [];
      }
      case 'db_outage': {
        const port = proxy.current.port;
        await proxy.current.close();
        await server.env.sleep(step.ms);
        proxy.current = await startTcpProxy(stack().databasePort, '127.0.0.1', port);
        // The retried step runs at most five minutes (the backoff's cap) later.
        await server.env.sleep(6 * 60_000);
        return [];
      }
      case 'customer': {
        const link = (await handle.query(viewQuery)).state.authentication;
        if (step.answer === 'ignores' || !link) return [];
        // The sandbox's challenge is the browser's part: here the customer's charge approves, or fails authentication.
        if (step.answer === 'fails') await override(sub.connector, 'authentication_failed', 1);
        let answer: string | null = null;
        try {
          await handle.executeUpdate(authenticateRenewalUpdate, { args: [{ linkId: link.linkId }] });
        } catch (error) {
          if (!(error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure)) throw error;
          answer = error.cause.type ?? 'refused';
        }
        // The subscription reads the customer's charge at its next check, a minute later.
        if (clock) await advanceTo(handle, clock, clock.frozenTime + 2 * 60_000);
        else await server.env.sleep(2 * 60_000);
        return [answer];
      }
      case 'circuit': {
        const key = sub.tenant.merchant_secret_key;
        const path = `${connectorsPath(sub.tenant.merchant_id)}/${sub.connector.id}/circuit`;
        const set = await api.post(path, { key, body: { state: step.state } });
        expect(set.status, set.text).to.equal(200);
        return [];
      }
    }
  }

  /** Arms "the next renewal fails" through the API; null when armed, else the refusal's code. */
  async function failNextRenewal(
    step: Extract<Step, { kind: 'fail_next_renewal' }>,
    sub: Subscribed,
    clock: Clock | null,
    armed: Armed,
  ): Promise<string | null> {
    const clockId = clock?.id ?? (armed.otherClockId ??= await createClock(sub, Date.now()));
    const res = await api.post(`/test-clocks/${clockId}/subscriptions/${sub.state.subscriptionId}/fail-next-renewal`, {
      key: sub.tenant.merchant_secret_key,
      body: step.code ? { failure_code: step.code } : {},
    });
    expect(res.status, `fail-next-renewal: ${res.text}`).to.be.oneOf([200, 409]);
    if (res.status !== 200) return res.body.error.code;
    expect(res.body.data).to.deep.equal({
      subscription_id: sub.state.subscriptionId,
      test_clock_id: clockId,
      failure_code: step.code ?? DEFAULT_FAILURE_CODE,
    });
    armed.since ??= (await authorizations(sub)).length;
    return null;
  }

  /** The provider's authorizations for the merchant's account (replays of one key excluded), oldest first. */
  async function authorizations(sub: Subscribed) {
    const account = await accountOf('provider_a', sub.connector.credentials);
    return (await ledger({ provider: 'provider_a', account, operation: 'authorize' })).filter((e) => !e.replayed);
  }

  /**
   * "The next renewal fails": on a clock, the first charge of the subscription to reach the provider after the arming
   * (and only it) is sent with the failure's card, declines with its failure_code (unless a forced outcome answered
   * instead) and dunning follows; every other charge goes out with the customer's card. In real time the arming is a
   * 409 that arms and changes nothing.
   */
  async function checkRenewalFailures(
    where: string,
    sub: Subscribed,
    step: Step,
    answers: Array<string | null>,
    before: SubscriptionWorkflowView,
    after: SubscriptionWorkflowView,
    clock: Clock | null,
    armed: Armed,
  ) {
    const subscriptionId = sub.state.subscriptionId;
    const failures = await rows(
      `select failure_code, transaction_id from test_clock_renewal_failures where subscription_id = ? order by armed_at`,
      [subscriptionId],
    );
    const waiting = failures.filter((f) => f.transaction_id === null);
    expect(waiting.length, `at most one failure waits at ${where}`).to.be.at.most(1);
    if (!clock) {
      if (step.kind === 'fail_next_renewal') {
        expect(answers, `arming a subscription not on the clock at ${where}`).to.deep.equal([
          'SUBSCRIPTION_NOT_ON_TEST_CLOCK',
        ]);
        expect(after.state, `a refused arming changes nothing at ${where}`).to.deep.equal(before.state);
      }
      expect(failures, `nothing armed for a subscription in real time at ${where}`).to.deep.equal([]);
      return;
    }
    if (step.kind === 'fail_next_renewal')
      expect([answers[0], waiting[0]?.failure_code], `armed at ${where}`).to.deep.equal([
        null,
        step.code ?? DEFAULT_FAILURE_CODE,
      ]);
    const claimed = new Map<string, RenewalFailureCode>(failures.map((f) => [f.transaction_id, f.failure_code]));
    const entries = await authorizations(sub);
    // Every card the sequence saves is the visa 4242: any other card at the provider is a failure's.
    for (const e of entries) {
      const code = e.reference ? claimed.get(e.reference) : undefined;
      expect(
        e.card_last4,
        `${e.reference} sent with ${code ? `the ${code} card` : "the customer's card"} at ${where}`,
      ).to.equal(code ? RENEWAL_FAILURE_CARDS[code].slice(-4) : CARDS.visa.number.slice(-4));
    }
    const em = stack().orm.em.fork();
    const charges = await em.find(TransactionSchema, { subscriptionId }, { orderBy: { createdAt: 'asc' } });
    const ofSubscription = new Set(charges.map((tx) => tx.id));
    for (const [transactionId, code] of claimed) {
      if (!transactionId) continue;
      const answeredByCard = entries.some((e) => e.reference === transactionId && e.reason === FAILURE_SCENARIO[code]);
      if (!answeredByCard) continue;
      const tx = charges.find((charge) => charge.id === transactionId)!;
      expect([tx.status, tx.failureCode], `the armed renewal declines with ${code} at ${where}`).to.deep.equal([
        'failed',
        code,
      ]);
      const dunning = await em.find(SubscriptionTransitionSchema, {
        subscriptionId,
        orderId: tx.orderId,
        transitionType: { $in: ['dunning_entry', 'dunning_retry', 'dunning_cancelled'] },
      });
      expect(
        dunning.map((t) => t.metadata?.decline_code),
        `dunning follows the armed renewal's decline at ${where}`,
      ).to.deep.equal([code]);
    }
    if (armed.since !== null && waiting.length === 0) {
      // Claimed: by the first charge of the subscription the provider saw after the arming.
      const first = entries.slice(armed.since).find((e) => e.reference && ofSubscription.has(e.reference));
      const latest = failures.at(-1)!.transaction_id;
      expect(first?.reference, `the next renewal after the arming claimed it at ${where}`).to.equal(latest);
      armed.since = null;
    }
  }

  async function send(op: Op, sub: Subscribed, handle: WorkflowHandle<typeof subscriptionWorkflow>) {
    try {
      switch (op.kind) {
        case 'pause':
          await handle.executeUpdate(pauseUpdate, { args: [{ ...admin, reason: null }] });
          break;
        case 'resume':
          await handle.executeUpdate(resumeUpdate, { args: [admin] });
          break;
        case 'cancel_now':
        case 'cancel_at_period_end':
          await handle.executeUpdate(cancelUpdate, {
            args: [{ ...admin, atPeriodEnd: op.kind === 'cancel_at_period_end', reason: null }],
          });
          break;
        case 'reactivate':
          await handle.executeUpdate(reactivateUpdate, { args: [admin] });
          break;
        case 'change_offer':
          await handle.executeUpdate(changeOfferUpdate, { args: [{ ...admin, target: op.target }] });
          break;
        case 'change_instrument': {
          const card = await saveCard(sub.tenant, sub.customerId, CARDS.visa);
          await handle.executeUpdate(changePaymentInstrumentUpdate, {
            args: [{ ...admin, paymentInstrumentId: card.id }],
          });
          break;
        }
      }
      return null;
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
        return error.cause.type ?? 'refused';
      }
      // An Update sent to a workflow that has ended (cancelled, expired) is refused by the server.
      if (error instanceof Error && /completed|not found/i.test(error.message)) return 'ENDED';
      throw error;
    }
  }

  /**
   * Waits until nothing is in flight (no workflow task, activity or child charge, and nothing due now: an Update
   * that makes a charge due wakes the loop a task later), then reads the workflow's view.
   */
  async function quiet(
    handle: WorkflowHandle<typeof subscriptionWorkflow>,
    clock: Clock | null,
  ): Promise<SubscriptionWorkflowView> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { raw, status } = await handle.describe();
      if (status.name !== 'RUNNING') return handle.query(viewQuery);
      const busy =
        (raw.pendingActivities?.length ?? 0) + (raw.pendingChildren?.length ?? 0) + (raw.pendingWorkflowTask ? 1 : 0);
      if (busy === 0 && !(await busyInHistory(handle))) {
        const view = await handle.query(viewQuery);
        // On a test clock what is due is due by the clock's time (the server's plays no part).
        const now = clock ? clock.frozenTime : Number(await server.env.currentTimeMs());
        const due = view.nextWakeAt !== null && Date.parse(view.nextWakeAt) <= now;
        if (!due) return view;
      }
      if (Date.now() > deadline) throw new Error('the subscription workflow did not come to rest within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Whether the subscription's history shows work in progress that describe does not report on the time-skipping
   * server: a workflow task scheduled or started (a signal being handled), or a child it started still open (a
   * renewal's charge, the refund of a renewal paid after the subscription ended). Both write rows the invariants read.
   */
  async function busyInHistory(handle: WorkflowHandle<typeof subscriptionWorkflow>): Promise<boolean> {
    const events = (await handle.fetchHistory()).events ?? [];
    const last = events.at(-1);
    if (last?.workflowTaskScheduledEventAttributes || last?.workflowTaskStartedEventAttributes) return true;
    const open = new Set<string>();
    for (const event of events) {
      if (event.startChildWorkflowExecutionInitiatedEventAttributes) open.add(String(event.eventId));
      const closed =
        event.startChildWorkflowExecutionFailedEventAttributes ??
        event.childWorkflowExecutionCompletedEventAttributes ??
        event.childWorkflowExecutionFailedEventAttributes ??
        event.childWorkflowExecutionCanceledEventAttributes ??
        event.childWorkflowExecutionTimedOutEventAttributes ??
        event.childWorkflowExecutionTerminatedEventAttributes;
      if (closed) open.delete(String(closed.initiatedEventId));
    }
    return open.size > 0;
  }

  /** What the sandbox and the database hold for the subscription's money. */
  async function snapshot(sub: Subscribed) {
    const account = await accountOf('provider_a', sub.connector.credentials);
    const approvals = (await ledger({ provider: 'provider_a', account, operation: 'authorize' })).filter(
      (e) => !e.replayed && (e.outcome === 'approved' || e.outcome === 'authorized'),
    );
    const transactions = await stack()
      .orm.em.fork()
      .find(TransactionSchema, { merchantId: sub.tenant.merchant_id }, { orderBy: { createdAt: 'asc' } });
    return { approvals, transactions };
  }

  async function checkInvariants(
    where: string,
    sub: Subscribed,
    step: Step,
    before: SubscriptionWorkflowView,
    after: SubscriptionWorkflowView,
    answers: Array<string | null>,
    money: Awaited<ReturnType<typeof snapshot>>,
    /** The subscription's time when the step began (its clock's on a test clock). */
    at: number,
  ) {
    const em = stack().orm.em.fork();
    const row = await storedSubscription(sub.state.subscriptionId);
    const state = after.state;
    // The read model shows what the workflow decided.
    expect(
      [
        row.status,
        row.cyclesCompleted,
        row.currentAmount,
        row.currentOfferId,
        row.cancelAtPeriodEnd,
        row.paymentInstrumentId,
        row.currentPeriodEnd.toISOString(),
      ],
      `row = workflow view at ${where}`,
    ).to.deep.equal([
      state.status,
      state.cyclesCompleted,
      state.amount,
      state.offerId,
      state.cancelAtPeriodEnd,
      state.paymentInstrumentId,
      state.periodEnd,
    ]);

    // Transitions form one chain.
    const transitions = await em.find(
      SubscriptionTransitionSchema,
      { subscriptionId: sub.state.subscriptionId },
      { orderBy: { createdAt: 'asc', id: 'asc' } },
    );
    // In the order the workflow wrote them: creation first, then by step number (the key's suffix).
    const position = (key: string) => (/:\d+$/.test(key) ? Number(key.split(':').pop()) : -1);
    const ordered = [...transitions].sort((a, b) => position(a.transitionKey) - position(b.transitionKey));
    for (const [i, t] of ordered.entries()) {
      if (i > 0)
        expect(t.fromStatus, `transition ${i} (${t.transitionType}) chains at ${where}`).to.equal(
          ordered[i - 1].toStatus,
        );
    }
    expect(ordered.at(-1)?.toStatus, `the last transition's status is the row's at ${where}`).to.equal(row.status);

    // One event per transition.
    const events = await em.find(EventSchema, {
      merchantId: sub.tenant.merchant_id,
      type: { $like: 'subscription.%' },
    });
    const count = (type: string) => events.filter((e) => e.type === type).length;
    for (const [transitionType, eventType] of Object.entries(EVENT_OF_TRANSITION)) {
      const made = transitions.filter((t) => t.transitionType === transitionType).length;
      expect(count(eventType), `${eventType} once per ${transitionType} at ${where}`).to.equal(made);
    }
    expect(count('subscription.created'), `one subscription.created at ${where}`).to.equal(1);
    expect(count('subscription.cancelled'), `at most one subscription.cancelled at ${where}`).to.be.at.most(1);
    expect(count('subscription.cancelled'), `subscription.cancelled iff cancelled at ${where}`).to.equal(
      row.status === 'cancelled' ? 1 : 0,
    );

    // cycles_completed equals successful renewals, and each cycle is charged at most once.
    expect(count('subscription.renewed'), `renewals = cycles_completed - 1 at ${where}`).to.equal(
      row.cyclesCompleted - 1,
    );
    const now = await snapshot(sub);
    const renewals = now.transactions.filter((tx) => tx.metadata?.subscription_id === sub.state.subscriptionId);
    const paidPerCycle = new Map<number, number>();
    for (const tx of renewals.filter((tx) => PAID.has(tx.status))) {
      const cycle = Number(tx.metadata?.cycle_number);
      paidPerCycle.set(cycle, (paidPerCycle.get(cycle) ?? 0) + 1);
    }
    for (const [cycle, paid] of paidPerCycle) expect(paid, `cycle ${cycle} paid at most once at ${where}`).to.equal(1);
    // Every approval at the provider is a transaction the database knows as paid: none is invisible.
    const paidReferences = new Set(now.transactions.filter((tx) => PAID.has(tx.status)).map((tx) => tx.id));
    const approvedReferences = new Set(now.approvals.map((e) => e.reference));
    expect(
      [...approvedReferences].filter((ref) => !paidReferences.has(ref!)),
      `approvals unknown to the database at ${where}`,
    ).to.deep.equal([]);
    // Renewals paid and kept (a renewal paid after a cancellation is refunded, not counted). The charge the
    // subscription is settling counts once it reads it: a slow provider may approve it after the step's advance.
    const kept = renewals.filter((tx) => tx.status === 'authorized' && tx.id !== state.settling?.transactionId).length;
    expect(kept, `renewal charges kept ≤ renewals at ${where}`).to.be.at.most(row.cyclesCompleted - 1);

    // Nothing is charged while paused, cancelled or expired (a jump starting there charges nothing).
    if (
      step.kind === 'jump' &&
      ['paused', 'cancelled', 'expired'].includes(before.state.status) &&
      !before.state.settling
    ) {
      expect(now.approvals.length, `no charge while ${before.state.status} at ${where}`).to.equal(
        money.approvals.length,
      );
    }

    // No dunning step without the issuer declining the card (or the instrument refused before any provider call):
    // our circuit breaker, our outages and the provider's processing errors are not the card's.
    const dunningSteps = transitions.filter(
      (t) =>
        ['dunning_entry', 'dunning_retry', 'dunning_cancelled'].includes(t.transitionType) &&
        t.metadata?.outcome === 'declined',
    );
    for (const t of dunningSteps) {
      if (t.orderId === null && INSTRUMENT_REFUSALS.has(String(t.metadata?.decline_code))) continue;
      const [tx] = renewals.filter((r) => r.orderId === t.orderId);
      expect(tx, `the declined charge of ${t.transitionType} exists at ${where}`).to.not.equal(undefined);
      const attempts = await em.find(TransactionAttemptSchema, { transactionId: tx.id });
      const judged = attempts.some(
        (a) => ['soft_decline', 'hard_decline'].includes(a.outcome ?? '') || ['success', 'pending'].includes(a.status),
      );
      expect(
        judged,
        `${t.transitionType} on ${tx.id} (${tx.failureCode}) was an issuer's decline at ${where}`,
      ).to.equal(true);
    }

    // Nothing is stuck: a live subscription (or a renewal still settling) has a wake-up ahead, unless it is paused
    // (then resume, an operation, moves it).
    if ((isLive(state.status) || state.settling) && !(state.status === 'paused' && !state.settling)) {
      expect(after.nextWakeAt, `a wake-up ahead while ${state.status} at ${where}`).to.not.equal(null);
    }

    // The reference model: a single operation is accepted exactly when the state table allows it, and lands
    // where the table says.
    if (step.kind === 'op') {
      const operation = OPERATION_OF[step.op.kind];
      const refusal =
        refuseOperation(before.state, operation) ??
        (step.op.kind === 'change_offer' ? refuseOfferChange(before.state, step.op.target.offerId) : null);
      const [answer] = answers;
      expect(answer === null, `${operation} accepted iff allowed from ${before.state.status} at ${where}`).to.equal(
        refusal === null,
      );
      if (answer === null) {
        expect(expectedStatuses(step.op, before, at), `${operation} lands where the table says at ${where}`).to.include(
          state.status,
        );
      }
    }
    // A renewal's authentication link: offered only after an issuer demanded authentication, and once per link.
    const asks = (
      await em.find(EventSchema, { merchantId: sub.tenant.merchant_id, type: 'payment_method.action_required' })
    ).filter((e) => (e.data as any).action_required?.reason === 'authentication_required');
    const demanded = transitions.filter((t) => t.metadata?.decline_code === 'authentication_required').length;
    expect(asks.length, `a link only after an authentication_required decline at ${where}`).to.be.at.most(demanded);
    // The customer's answer lands where the last renewal's outcome says: paid → active on the next cycle; failed →
    // still in dunning, no retry spent; a link the workflow refuses changes nothing.
    if (step.kind === 'customer' && step.answer !== 'ignores' && before.state.authentication) {
      // A usable link still cannot charge a saved card that is revoked or expired (the customer must add a card).
      const instrument = await em.findOne(PaymentInstrumentSchema, { id: before.state.paymentInstrumentId });
      const cardRefused = !instrument || ['revoked', 'expired'].includes(instrument.status);
      const refusal =
        refuseAuthentication(before.state, before.state.authentication.linkId, at) ?? (cardRefused ? 'card' : null);
      const [answer] = answers;
      expect(answer === null, `the link accepted iff usable at ${where}`).to.equal(refusal === null);
      // The customer's charge of this step (none when the link was refused); a forced decline may still meet it.
      const charge =
        answer === null
          ? now.transactions.filter((tx) => tx.metadata?.customer_authenticated_renewal).at(-1)
          : undefined;
      // Approved after the step's advance (a slow provider), it is still being settled: counted once read.
      const read = charge && state.settling?.transactionId !== charge.id;
      if (charge && read && PAID.has(charge.status)) {
        expect([state.status, state.cyclesCompleted], `the renewal paid by the customer at ${where}`).to.deep.equal([
          'active',
          before.state.cyclesCompleted + 1,
        ]);
      } else {
        expect(
          [state.status, state.dunningAttempts, state.cyclesCompleted],
          `a failed or refused authentication changes nothing at ${where}`,
        ).to.deep.equal([before.state.status, before.state.dunningAttempts, before.state.cyclesCompleted]);
      }
    }
    if (step.kind === 'concurrent' || step.kind === 'during_renewal') {
      // Operations at once are serialized: at most one pause and one resume can both be accepted in a row, etc.
      const accepted = step.ops.filter((_, i) => answers[i] === null).map((op) => op.kind);
      expect(accepted.filter((k) => k === 'pause').length, `one pause at ${where}`).to.be.at.most(1);
      expect(accepted.filter((k) => k === 'cancel_now').length, `one cancel at ${where}`).to.be.at.most(1);
    }
  }

  /**
   * Where an accepted operation may take the subscription, once the workflow is at rest: a move that makes a charge
   * due now (resume past the due date, override, a new instrument in dunning) may end paid or declined.
   */
  function expectedStatuses(op: Op, before: SubscriptionWorkflowView, at: number): string[] {
    const billsNow = ['active', 'dunning', 'cancelled'];
    switch (op.kind) {
      case 'cancel_at_period_end': {
        // A period already over (its renewal waits out an outage or a hold) ends at once.
        const end = before.state.status === 'trialing' ? before.state.trialEnd : before.state.periodEnd;
        return end && Date.parse(end) <= at ? [before.state.status, 'cancelled'] : [before.state.status];
      }
      case 'pause':
        return ['paused'];
      case 'cancel_now':
        return ['cancelled'];
      case 'resume':
        return before.state.pausedFrom === 'trialing' ? ['trialing', ...billsNow] : billsNow;
      case 'change_offer':
        return [before.state.status, ...billsNow];
      case 'change_instrument':
        return before.state.status === 'dunning' ? billsNow : [before.state.status];
      default:
        return [before.state.status];
    }
  }
});
