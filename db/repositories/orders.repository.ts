/**
 * orders, order_items and order_status_history: written when a charge opens (activities/transactions), when a browser
 * enrolment verifies a card (a card_setup order, recordCardSetupOrder) and when a transaction moves
 * (domain/transactions/transactions.transitions.ts mirrors it onto its order).
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface OrderRow {
  id: string;
  organizationId: string;
  merchantId: string;
  customerId: string | null;
  externalOrderId: string | null;
  checkoutSessionId: string | null;
  orderType: string;
  recurrence: string;
  totalAmount: number;
  currency: string;
  metadata: Record<string, unknown> | null;
}

export interface OrderItemRow {
  productId: string | null;
  offerId: string | null;
  productName: string;
  offerName: string | null;
  billingCycle: string | null;
  cycleLimit: number | null;
  isFirstCharge: boolean;
  quantity: number;
  unitAmount: number;
  totalAmount: number;
  currency: string;
  installments: number | null;
}

/** A new pending order with its items. */
export async function insertOrder(em: EntityManager, order: OrderRow, items: readonly OrderItemRow[]): Promise<void> {
  await em.execute(
    `insert into orders (id, organization_id, merchant_id, customer_id, external_order_id, checkout_session_id, order_type,
       recurrence, total_amount, currency, status, metadata)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
    [
      order.id,
      order.organizationId,
      order.merchantId,
      order.customerId,
      order.externalOrderId,
      order.checkoutSessionId,
      order.orderType,
      order.recurrence,
      order.totalAmount,
      order.currency,
      order.metadata === null ? null : JSON.stringify(order.metadata),
    ],
  );
  for (const item of items) {
    await em.execute(
      `insert into order_items (id, order_id, product_id, offer_id, product_name, offer_name, billing_cycle, cycle_limit,
         is_first_charge, quantity, unit_amount, total_amount, currency, installments)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        randomUUID(),
        order.id,
        item.productId,
        item.offerId,
        item.productName,
        item.offerName,
        item.billingCycle,
        item.cycleLimit,
        item.isFirstCharge,
        item.quantity,
        item.unitAmount,
        item.totalAmount,
        item.currency,
        item.installments,
      ],
    );
  }
}

/** One history row per transition key (a retried move records nothing twice). */
export async function recordOrderStatus(
  em: EntityManager,
  entry: { orderId: string; from: string | null; to: string; triggeredBy: string; key: string },
): Promise<void> {
  await em.execute(
    `insert into order_status_history (id, order_id, from_status, to_status, triggered_by, transition_key)
     values (?, ?, ?, ?, ?, ?) on conflict (transition_key) do nothing`,
    [randomUUID(), entry.orderId, entry.from, entry.to, entry.triggeredBy, entry.key],
  );
}

/**
 * Moves the order to `to` (locking it) and records the history entry of the move, in one statement; nothing when
 * the order is missing or already there (recordOrderStatus's key rule: a retried move records nothing twice).
 */
export async function moveOrderStatus(
  em: EntityManager,
  entry: { orderId: string; to: string; triggeredBy: string; key: string },
): Promise<void> {
  await em.execute(
    `with old as (select id, status from orders where id = ? for update),
     moved as (
       update orders o set status = ?, updated_at = now() from old
        where o.id = old.id and old.status <> ?
       returning old.status as from_status
     )
     insert into order_status_history (id, order_id, from_status, to_status, triggered_by, transition_key)
     select ?, ?, moved.from_status, ?, ?, ? from moved
     on conflict (transition_key) do nothing`,
    [entry.orderId, entry.to, entry.to, randomUUID(), entry.orderId, entry.to, entry.triggeredBy, entry.key],
  );
}

/**
 * The order of a browser card enrolment's zero-amount verification (Document 3's card_setup): no items, no
 * amount, opened pending and moved to the verification's outcome in the same database transaction.
 */
export async function recordCardSetupOrder(
  em: EntityManager,
  order: Pick<OrderRow, 'id' | 'organizationId' | 'merchantId' | 'customerId' | 'checkoutSessionId' | 'currency'>,
  outcome: 'authorized' | 'failed',
): Promise<void> {
  await insertOrder(
    em,
    { ...order, externalOrderId: null, orderType: 'card_setup', recurrence: 'none', totalAmount: 0, metadata: null },
    [],
  );
  await recordOrderStatus(em, {
    orderId: order.id,
    from: null,
    to: 'pending',
    triggeredBy: 'api',
    key: `${order.id}:open`,
  });
  await moveOrderStatus(em, { orderId: order.id, to: outcome, triggeredBy: 'system', key: `${order.id}:verified` });
}
