/**
 * Test clocks (issue 25; docs/api-decisions.md "Test clocks"). A clock is a merchant's simulated time: its
 * customers' subscriptions run on it. An advance is recorded here (status `advancing`, the new frozen_time) and
 * carried out by the test-clock advance workflow, which sets the clock `ready` when every subscription is there.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TestClockSchema, type TestClock } from '../../../db/entities';
import { ApiError, errors } from '../../../domain/platform/errors';
import { newId } from '../../../domain/platform/ids';
import type { AppDeps } from '../../deps';
import { offsetOf, type PageRequest } from '../../http/pagination';
import { startTestClockAdvance, updateSubscription } from '../../temporal';
import type { Caller } from '../../../workflows/lib/subscription-moves';

const notFound = () => errors.notFound('No such test clock');

export async function createTestClock(
  em: EntityManager,
  merchantId: string,
  input: { frozen_time: string; name?: string | null },
): Promise<TestClock> {
  const clock = em.create(TestClockSchema, {
    id: newId('clk'),
    merchantId,
    name: input.name ?? null,
    frozenTime: new Date(input.frozen_time),
    status: 'ready',
    deletedAt: null,
  } as TestClock);
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

export async function listTestClocks(em: EntityManager, merchantId: string, page: PageRequest) {
  const [items, total] = await em.findAndCount(
    TestClockSchema,
    { merchantId, deletedAt: null },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: offsetOf(page) },
  );
  return { items, total };
}

/**
 * Moves the clock forward: 422 when the time is not later than the clock's, or an advance is still running. The
 * row is committed as `advancing` before the workflow starts (it marks the clock ready by that row); if the start
 * fails, the row goes back to where it was.
 */
export async function advanceTestClock(
  em: EntityManager,
  deps: AppDeps,
  merchantId: string,
  id: string,
  frozenTime: string,
): Promise<TestClock> {
  const target = new Date(frozenTime);
  const before = await em.transactional(async (tx) => {
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
    const previous = clock.frozenTime;
    clock.frozenTime = target;
    clock.status = 'advancing';
    return { previous, clock: { ...clock } };
  });
  try {
    await startTestClockAdvance(deps.temporal.client, id, target.toISOString());
  } catch (error) {
    // Not started: the clock goes back to where it was, so the advance can be asked for again.
    await em.execute(
      `update test_clocks set frozen_time = ?, status = 'ready' where id = ? and frozen_time = ? and status = 'advancing'`,
      [before.previous, id, target],
    );
    throw error;
  }
  // As committed: the advance may already be over by now (a clock without subscriptions is ready at once).
  return before.clock;
}

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
) {
  await getTestClock(em, merchantId, id);
  const subscriptions = await em.execute<Array<{ id: string }>>(
    `select s.id from subscriptions s join customers c on c.id = s.customer_id
      where c.test_clock_id = ? and s.merchant_id = ? and s.status not in ('cancelled', 'expired') order by s.id`,
    [id, merchantId],
  );
  for (const sub of subscriptions) {
    await updateSubscription(
      deps.temporal.client,
      sub.id,
      { kind: 'cancel', args: { ...caller, atPeriodEnd: false, reason: 'test_clock_deleted' } },
      `test-clock-deleted:${id}:${sub.id}`,
      deps.config.workflowWaitMs,
    ).catch((error) => {
      // Already ended meanwhile (422 from the workflow): nothing left to cancel.
      if (!(error instanceof ApiError && error.status === 422)) throw error;
    });
  }
  await em.execute(`update test_clocks set deleted_at = now(), updated_at = now() where id = ? and merchant_id = ?`, [
    id,
    merchantId,
  ]);
}

/** The live clock of the subscription's customer (null: real time); 404 for another merchant's subscription. */
export async function testClockOfSubscription(em: EntityManager, merchantId: string, subscriptionId: string) {
  const [row] = await em.execute<Array<{ test_clock_id: string | null }>>(
    `select c.test_clock_id from subscriptions s join customers c on c.id = s.customer_id
      where s.id = ? and s.merchant_id = ?`,
    [subscriptionId, merchantId],
  );
  if (!row) throw errors.notFound('No such subscription');
  if (!row.test_clock_id) return null;
  return em.findOne(TestClockSchema, { id: row.test_clock_id, merchantId, deletedAt: null });
}
