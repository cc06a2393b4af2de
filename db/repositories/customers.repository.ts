/**
 * customers: the reads the customers service makes besides its entity (the service owns the table's writes
 * through the entity).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CustomerSchema, type Customer } from '../entities';
import { findOneRow } from '../reads';

/** The merchant's customer to present (a plain row, not managed: never flush it), or null. */
export async function customerToPresent(
  em: EntityManager,
  merchantId: string,
  customerId: string,
): Promise<Customer | null> {
  return findOneRow(em, CustomerSchema, { id: customerId, merchantId });
}

/**
 * Whether any row names the customer (transactions, orders, saved instruments, subscriptions, checkout sessions):
 * history that keeps it from being deleted. Those rows reference it with a restricting foreign key. The caller has
 * read the customer within its merchant first.
 */
export async function customerHasHistory(em: EntityManager, customerId: string): Promise<boolean> {
  const [row] = await em.execute<Array<{ used: boolean }>>(
    `select exists (select 1 from transactions where customer_id = ?)
         or exists (select 1 from orders where customer_id = ?)
         or exists (select 1 from payment_instruments where customer_id = ?)
         or exists (select 1 from subscriptions where customer_id = ?)
         or exists (select 1 from checkout_sessions where customer_id = ?) as used`,
    [customerId, customerId, customerId, customerId, customerId],
  );
  return row.used;
}

/** A bare pg pool or client (the driver under MikroORM), for the bench's floor that reads without the ORM. */
export interface PgQueryable {
  query(sql: string, params: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/**
 * The bench's floor of an API read (bench/processes/baselines.ts): the merchant's customer row in one round trip
 * through the bare driver, scoped to the merchant as every read is.
 */
export async function customerRowByIdAndMerchant(
  pool: PgQueryable,
  merchantId: string,
  customerId: string,
): Promise<Record<string, unknown> | null> {
  const { rows } = await pool.query('select * from customers where id = $1 and merchant_id = $2', [
    customerId,
    merchantId,
  ]);
  return rows[0] ?? null;
}
