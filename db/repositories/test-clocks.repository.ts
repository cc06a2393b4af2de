/**
 * test_clocks and what a clock moves: the one owner of the table's raw SQL. The API (api/modules/test-clocks/)
 * creates clocks through the entity and records an advance or a deletion here; the advance workflow's activities
 * (activities/subscriptions/) list the subscriptions a clock moves and mark it ready here. A clock's subscriptions
 * are the live ones of the customers that name it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Serialises the merchant's clock bookkeeping (creating a clock, starting an advance) until the transaction ends,
 * so two concurrent requests count one after the other. An advisory lock rather than the merchant row's: a row
 * lock would also hold every insert that references the merchant.
 */
export async function lockMerchantTestClocks(em: EntityManager, merchantId: string): Promise<void> {
  await em.execute(`select pg_advisory_xact_lock(hashtext('test_clocks'), hashtext(?))`, [merchantId]);
}

/** Puts an advance that was recorded but never started back (unless the clock moved or ended since). */
export async function revertTestClockAdvance(
  em: EntityManager,
  merchantId: string,
  clockId: string,
  advance: { from: Date; to: Date },
): Promise<void> {
  await em.execute(
    `update test_clocks set frozen_time = ?, status = 'ready'
      where id = ? and merchant_id = ? and frozen_time = ? and status = 'advancing'`,
    [advance.from, clockId, merchantId, advance.to],
  );
}

/** Another live clock of the merchant that is still advancing, or null. */
export async function otherAdvancingTestClock(
  em: EntityManager,
  merchantId: string,
  clockId: string,
): Promise<string | null> {
  const [running] = await em.execute<Array<{ id: string }>>(
    `select id from test_clocks where merchant_id = ? and status = 'advancing' and deleted_at is null and id <> ?
      limit 1`,
    [merchantId, clockId],
  );
  return running?.id ?? null;
}

/** The billing calendar of a live subscription on a clock, as stored. */
export interface ClockSubscriptionCalendarRow {
  billing_anchor_at: Date | string;
  billing_cycle: string;
  custom_billing_days: number | string | null;
  next_due_index: number | string;
}

/** The billing calendars of the clock's live subscriptions (what an advance would renew). */
export async function testClockSubscriptionCalendars(
  em: EntityManager,
  merchantId: string,
  clockId: string,
): Promise<ClockSubscriptionCalendarRow[]> {
  return em.execute<ClockSubscriptionCalendarRow[]>(
    `select s.billing_anchor_at, s.billing_cycle, s.custom_billing_days, s.next_due_index
       from subscriptions s join customers c on c.id = s.customer_id
      where c.test_clock_id = ? and s.merchant_id = ? and s.status not in ('cancelled', 'expired')`,
    [clockId, merchantId],
  );
}

/**
 * The ids of the clock's live subscriptions, in id order. The API passes the caller's merchant; the advance
 * workflow passes none: it only runs for a clock the API found among the merchant's.
 */
export async function testClockSubscriptionIds(
  em: EntityManager,
  clockId: string,
  merchantId?: string,
): Promise<string[]> {
  const rows = await em.execute<Array<{ id: string }>>(
    `select s.id from subscriptions s join customers c on c.id = s.customer_id
      where c.test_clock_id = ?${merchantId === undefined ? '' : ' and s.merchant_id = ?'}
        and s.status not in ('cancelled', 'expired') order by s.id`,
    merchantId === undefined ? [clockId] : [clockId, merchantId],
  );
  return rows.map((row) => row.id);
}

export async function markTestClockDeleted(em: EntityManager, merchantId: string, clockId: string): Promise<void> {
  await em.execute(`update test_clocks set deleted_at = now(), updated_at = now() where id = ? and merchant_id = ?`, [
    clockId,
    merchantId,
  ]);
}

/** Every subscription of the clock reached frozenTime: the clock is ready (unless it moved or ended since). */
export async function markTestClockReady(em: EntityManager, clockId: string, frozenTime: string): Promise<void> {
  await em.execute(
    `update test_clocks set status = 'ready', updated_at = now()
      where id = ? and frozen_time = ? and status = 'advancing'`,
    [clockId, frozenTime],
  );
}

/**
 * The clock the merchant's subscription's customer names: undefined for no such subscription of the merchant,
 * null for a customer on real time.
 */
export async function testClockIdOfSubscription(
  em: EntityManager,
  merchantId: string,
  subscriptionId: string,
): Promise<string | null | undefined> {
  const [row] = await em.execute<Array<{ test_clock_id: string | null }>>(
    `select c.test_clock_id from subscriptions s join customers c on c.id = s.customer_id
      where s.id = ? and s.merchant_id = ?`,
    [subscriptionId, merchantId],
  );
  return row === undefined ? undefined : row.test_clock_id;
}

/** The live test clock of the transaction's customer, if it has one. */
export async function testClockOfTransaction(
  em: EntityManager,
  transactionId: string,
): Promise<{ id: string; frozenTime: Date } | null> {
  const [row] = await em.execute<Array<{ id: string; frozen_time: Date }>>(
    `select k.id, k.frozen_time from transactions t join customers c on c.id = t.customer_id
       join test_clocks k on k.id = c.test_clock_id where t.id = ? and k.deleted_at is null`,
    [transactionId],
  );
  return row ? { id: row.id, frozenTime: new Date(row.frozen_time) } : null;
}

/**
 * Arms "the next renewal fails" for a subscription on a clock: one failure waits per subscription, so arming again
 * before the renewal only changes its failure_code.
 */
export async function armRenewalFailure(
  em: EntityManager,
  armed: { merchantId: string; testClockId: string; subscriptionId: string; failureCode: string },
): Promise<void> {
  await em.execute(
    `insert into test_clock_renewal_failures (merchant_id, test_clock_id, subscription_id, failure_code)
     values (?, ?, ?, ?)
     on conflict (subscription_id) where transaction_id is null
       do update set failure_code = excluded.failure_code, test_clock_id = excluded.test_clock_id, armed_at = now()`,
    [armed.merchantId, armed.testClockId, armed.subscriptionId, armed.failureCode],
  );
}

/**
 * The failure_code a renewal charge must decline with, or null. The first renewal charge after the arming claims
 * the waiting failure; the same charge asking again (a retried or cascaded attempt) gets the same answer, and any
 * other charge of the subscription gets null.
 */
export async function claimRenewalFailure(
  em: EntityManager,
  charge: { merchantId: string; subscriptionId: string; transactionId: string },
): Promise<string | null> {
  const { merchantId, subscriptionId, transactionId } = charge;
  const [row] = await em.execute<Array<{ failure_code: string }>>(
    `with mine as (
       select failure_code from test_clock_renewal_failures
        where merchant_id = ? and subscription_id = ? and transaction_id = ?
     ), claimed as (
       update test_clock_renewal_failures set transaction_id = ?, claimed_at = now()
        where merchant_id = ? and subscription_id = ? and transaction_id is null and not exists (select 1 from mine)
       returning failure_code
     )
     select failure_code from mine union all select failure_code from claimed`,
    [merchantId, subscriptionId, transactionId, transactionId, merchantId, subscriptionId],
  );
  return row?.failure_code ?? null;
}
