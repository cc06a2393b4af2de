/**
 * Test clocks (docs/api-decisions.md "Test clocks"). A clock is a merchant's simulated time: its
 * customers' subscriptions run on it. An advance is recorded here (status `advancing`, the new frozen_time) and
 * carried out by the test-clock advance workflow, which sets the clock `ready` when every subscription is there.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CustomerSchema,
  MerchantActivitySchema,
  TestClockSchema,
  type MerchantActivity,
  type TestClock,
} from '../../../db/entities';
import { recordActivity, type Actor } from '../../../domain/merchants/merchants.activity';
import { ApiError, errors } from '../../../domain/platform/errors';
import { newId } from '../../../domain/platform/ids';
import type { AppDeps } from '../../deps';
import { offsetOf, type PageRequest } from '../../http/pagination';
import {
  lockMerchantTestClocks,
  markTestClockDeleted,
  otherAdvancingTestClock,
  revertTestClockAdvance,
  testClockIdOfSubscription,
  testClockSubscriptionCalendars,
  testClockSubscriptionIds,
  type ClockSubscriptionCalendarRow,
} from '../../../db/repositories/test-clocks.repository';
import { updateSubscription } from '../../temporal/subscriptions';
import { startTestClockAdvance } from '../../temporal/test-clocks';
import { organizationOfMerchant } from '../merchant-dashboard/merchant-dashboard.service';
import type { Caller } from '../../../workflows/lib/subscription-moves';
import {
  advanceHorizon,
  MAX_CUSTOMERS_PER_TEST_CLOCK,
  MAX_TEST_CLOCKS_PER_MERCHANT,
  renewalsDueBy,
  type AdvanceLimits,
  type RenewalCalendar,
} from './test-clocks.rules';

const notFound = () => errors.notFound('No such test clock');

/**
 * Creating, advancing and deleting a clock, and arming a renewal failure on it, are administrative actions: each is in
 * the merchant's activity record with its actor, written in the transaction that makes the change (a refused request
 * records nothing).
 */
export async function recordClockChange(
  em: EntityManager,
  clock: TestClock,
  action: 'created' | 'advanced' | 'deleted' | 'renewal_failure_armed',
  actor: Actor,
  changes: Record<string, unknown>,
): Promise<MerchantActivity> {
  return recordActivity(em, {
    organizationId: await organizationOfMerchant(em, clock.merchantId),
    merchantId: clock.merchantId,
    action: `test_clock.${action}`,
    actor,
    changes: { test_clock_id: clock.id, ...changes },
  });
}

export async function createTestClock(
  em: EntityManager,
  merchantId: string,
  actor: Actor,
  input: { frozen_time: string; name?: string | null },
): Promise<TestClock> {
  await lockMerchantTestClocks(em, merchantId);
  const live = await em.count(TestClockSchema, { merchantId, deletedAt: null });
  if (live >= MAX_TEST_CLOCKS_PER_MERCHANT) {
    throw errors.businessRule(
      'TEST_CLOCK_LIMIT_REACHED',
      `A merchant has at most ${MAX_TEST_CLOCKS_PER_MERCHANT} test clocks; delete one first`,
      { limit: MAX_TEST_CLOCKS_PER_MERCHANT, test_clocks: live },
    );
  }
  const frozenTime = new Date(input.frozen_time);
  const clock = em.create(TestClockSchema, {
    id: newId('clk'),
    merchantId,
    name: input.name ?? null,
    frozenTime,
    startTime: frozenTime,
    status: 'ready',
    deletedAt: null,
  } as TestClock);
  await recordClockChange(em, clock, 'created', actor, {
    name: clock.name,
    frozen_time: frozenTime.toISOString(),
  });
  await em.flush();
  return clock;
}

/** A live (not deleted) clock of the merchant; 404 otherwise. */
export async function getTestClock(em: EntityManager, merchantId: string, id: string, lock = false) {
  const clock = await em.findOne(
    TestClockSchema,
    { id, merchantId, deletedAt: null },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!clock) throw notFound();
  return clock;
}

/**
 * The live clock of the merchant a new customer names (400 otherwise, never another's data), with room for one more
 * customer (422 past the limit). The clock row stays locked until the request ends, so concurrent creates count one
 * after the other.
 */
export async function requireTestClockWithRoom(em: EntityManager, merchantId: string, id: string): Promise<void> {
  const clock = await em.findOne(
    TestClockSchema,
    { id, merchantId, deletedAt: null },
    { fields: ['id'], lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!clock) throw errors.invalidValue('test_clock_id', 'must name a test clock of this merchant');
  const customers = await em.count(CustomerSchema, { merchantId, testClockId: id });
  if (customers >= MAX_CUSTOMERS_PER_TEST_CLOCK) {
    throw errors.businessRule(
      'TEST_CLOCK_CUSTOMER_LIMIT_REACHED',
      `A test clock holds at most ${MAX_CUSTOMERS_PER_TEST_CLOCK} customers; use another clock`,
      { test_clock_id: id, limit: MAX_CUSTOMERS_PER_TEST_CLOCK, customers },
    );
  }
}

export async function listTestClocks(em: EntityManager, merchantId: string, page: PageRequest) {
  const [items, total] = await em.findAndCount(
    TestClockSchema,
    { merchantId, deletedAt: null },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: offsetOf(page) },
  );
  return { items, total };
}

/**
 * Moves the clock forward: 422 when the time is not later than the clock's, past the clock's horizon, when an
 * advance of any clock of the merchant is still running, or when it would run more renewals than one advance may.
 * The row is committed as `advancing` before the workflow starts (it marks the clock ready by that row); if the
 * start fails, the row goes back to where it was.
 */
export async function advanceTestClock(
  em: EntityManager,
  deps: AppDeps,
  merchantId: string,
  id: string,
  frozenTime: string,
  actor: Actor,
): Promise<TestClock> {
  const target = new Date(frozenTime);
  const before = await em.transactional(async (tx) => {
    await lockMerchantTestClocks(tx, merchantId);
    const clock = await getTestClock(tx, merchantId, id, true);
    if (clock.status === 'advancing') {
      throw errors.businessRule('TEST_CLOCK_ADVANCING', 'The clock is still advancing; wait until it is ready', {
        test_clock_id: id,
      });
    }
    if (target.getTime() <= clock.frozenTime.getTime()) {
      throw errors.businessRule(
        'TEST_CLOCK_NOT_FORWARD',
        'A test clock only moves forward: frozen_time must be later',
        {
          test_clock_id: id,
          frozen_time: clock.frozenTime.toISOString(),
        },
      );
    }
    await assertAdvanceBounded(tx, clock, target, deps.config.testClocks);
    const previous = clock.frozenTime;
    clock.frozenTime = target;
    clock.status = 'advancing';
    const record = await recordClockChange(tx, clock, 'advanced', actor, {
      frozen_time: { from: previous.toISOString(), to: target.toISOString() },
    });
    return { previous, clock: { ...clock }, recordId: record.id };
  });
  try {
    await startTestClockAdvance(deps.temporal.client, id, target.toISOString(), deps.config.testClocks.advance);
  } catch (error) {
    // Not started: the clock goes back to where it was, so the advance can be asked for again, and the advance is
    // not in the activity record.
    await em.transactional(async (tx) => {
      await revertTestClockAdvance(tx, merchantId, id, { from: before.previous, to: target });
      await tx.nativeDelete(MerchantActivitySchema, { id: before.recordId });
    });
    throw error;
  }
  // As committed: the advance may already be over by now (a clock without subscriptions is ready at once).
  return before.clock;
}

/** The bounds of one advance (test-clocks.rules.ts), each refused with the limit and what was asked. */
async function assertAdvanceBounded(em: EntityManager, clock: TestClock, target: Date, limits: AdvanceLimits) {
  const horizon = advanceHorizon(clock, limits);
  if (target > horizon.latest) {
    const [code, message] =
      horizon.bound === 'advance'
        ? ['TEST_CLOCK_ADVANCE_TOO_FAR', `One advance moves a test clock at most ${horizon.limitMonths} months`]
        : [
            'TEST_CLOCK_HORIZON_REACHED',
            `A test clock moves at most ${horizon.limitMonths} months past the time it was created at`,
          ];
    throw errors.businessRule(code, message, {
      test_clock_id: clock.id,
      limit_months: horizon.limitMonths,
      frozen_time: clock.frozenTime.toISOString(),
      requested_frozen_time: target.toISOString(),
      latest_frozen_time: horizon.latest.toISOString(),
    });
  }
  const running = await otherAdvancingTestClock(em, clock.merchantId, clock.id);
  if (running) {
    throw errors.businessRule(
      'TEST_CLOCK_MERCHANT_ADVANCING',
      'A merchant advances one test clock at a time; wait until the other clock is ready',
      { test_clock_id: clock.id, advancing_test_clock_id: running, limit: 1 },
    );
  }
  const calendars = await testClockSubscriptionCalendars(em, clock.merchantId, clock.id);
  const renewals = renewalsDueBy(calendars.map(calendarOf), target);
  if (renewals > limits.renewalsPerAdvance) {
    throw errors.businessRule(
      'TEST_CLOCK_RENEWAL_LIMIT_REACHED',
      `One advance runs at most ${limits.renewalsPerAdvance} renewals; advance the clock in smaller steps`,
      {
        test_clock_id: clock.id,
        limit: limits.renewalsPerAdvance,
        renewals,
        requested_frozen_time: target.toISOString(),
      },
    );
  }
}

const calendarOf = (row: ClockSubscriptionCalendarRow): RenewalCalendar => ({
  billingAnchorAt: new Date(row.billing_anchor_at),
  billingCycle: row.billing_cycle as RenewalCalendar['billingCycle'],
  customBillingDays: row.custom_billing_days === null ? null : Number(row.custom_billing_days),
  nextDueIndex: Number(row.next_due_index),
});

/**
 * Ends the clock: every live subscription of its customers is cancelled now (at the clock's time, as an admin
 * move by the calling key), then the clock is marked deleted. Its customers are kept, still naming the clock they were on.
 */
export async function deleteTestClock(
  em: EntityManager,
  deps: AppDeps,
  merchantId: string,
  id: string,
  caller: Caller,
  actor: Actor,
) {
  const clock = await getTestClock(em, merchantId, id);
  const subscriptions = await testClockSubscriptionIds(em, id, merchantId);
  for (const subscriptionId of subscriptions) {
    await updateSubscription(
      deps.temporal.client,
      subscriptionId,
      { kind: 'cancel', args: { ...caller, atPeriodEnd: false, reason: 'test_clock_deleted' } },
      `test-clock-deleted:${id}:${subscriptionId}`,
      deps.config.workflowWaitMs,
    ).catch((error) => {
      // Already ended meanwhile (422 from the workflow): nothing left to cancel.
      if (!(error instanceof ApiError && error.status === 422)) throw error;
    });
  }
  await em.transactional(async (tx) => {
    await markTestClockDeleted(tx, merchantId, id);
    await recordClockChange(tx, clock, 'deleted', actor, {
      frozen_time: clock.frozenTime.toISOString(),
      subscriptions_cancelled: subscriptions.length,
    });
  });
}

/** The live clock of the subscription's customer (null: real time); 404 for another merchant's subscription. */
export async function testClockOfSubscription(em: EntityManager, merchantId: string, subscriptionId: string) {
  const clockId = await testClockIdOfSubscription(em, merchantId, subscriptionId);
  if (clockId === undefined) throw errors.notFound('No such subscription');
  if (!clockId) return null;
  return em.findOne(TestClockSchema, { id: clockId, merchantId, deletedAt: null });
}
