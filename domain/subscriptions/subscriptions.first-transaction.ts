/**
 * What a paid first charge of a recurring offer does beyond the charge: its card is kept as a payment instrument
 * (before the single-use token is wiped), and the subscription is written. A second live subscription to the same
 * plan is refused before anything is charged (checkLivePlan, from the charge request).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CheckoutItemSchema,
  OrderItemSchema,
  OrderSchema,
  ProductSchema,
  SubscriptionSchema,
  TransactionAttemptSchema,
  TransactionSchema,
  type OrderItem,
  type Transaction,
} from '../../db/entities';
import { saveCardFromToken } from '../../db/repositories/payment-instruments.repository';
import { idFromSeed } from '../platform/ids';
import type { SubscriptionState } from '../../workflows/lib/subscription-state';
import { alreadySubscribed, createSubscription } from './subscriptions.creation';

/** The order's recurring item (the first one: one subscription per first charge), or null. */
async function recurringItemOf(em: EntityManager, orderId: string | null): Promise<OrderItem | null> {
  if (!orderId) return null;
  const order = await em.findOne(OrderSchema, { id: orderId });
  if (order?.recurrence !== 'initial') return null;
  return em.findOne(OrderItemSchema, { orderId, billingCycle: { $ne: null } }, { orderBy: { createdAt: 'asc' } });
}

/**
 * The card network's transaction id of the charge's approved attempt (null when the provider gave none). A retried
 * attempt replays at the provider under the same idempotency key, so this is the one id of the first charge.
 */
export async function networkTransactionIdOf(em: EntityManager, transactionId: string): Promise<string | null> {
  const approved = await em.findOne(
    TransactionAttemptSchema,
    { transactionId, status: 'success' },
    { orderBy: { attemptNumber: 'desc' } },
  );
  return approved?.networkTransactionId ?? null;
}

/**
 * Inside the finalizing transaction of a successful charge, before its token is spent: a recurring first charge
 * paid with a new card keeps that card as the customer's instrument, and the transaction names it.
 */
export async function keepTransactionCard(em: EntityManager, tx: Transaction): Promise<void> {
  if (!tx.cardTokenId || !tx.customerId || tx.paymentInstrumentId) return;
  if (!(await recurringItemOf(em, tx.orderId))) return;
  const instrumentId = await saveCardFromToken(em, {
    id: idFromSeed('pi', tx.id),
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    customerId: tx.customerId,
    tokenId: tx.cardTokenId,
    networkTransactionId: await networkTransactionIdOf(em, tx.id),
    connectorId: tx.connectorId,
  });
  if (instrumentId) {
    tx.paymentInstrumentId = instrumentId;
    await em.flush();
  }
}

/** The subscription of a paid recurring first charge (null when the charge has no recurring item, customer or card). */
export async function createSubscriptionForTransaction(
  em: EntityManager,
  transactionId: string,
  at: Date,
): Promise<SubscriptionState | null> {
  const charge = await em.findOne(TransactionSchema, { id: transactionId });
  if (!charge || (charge.status !== 'authorized' && charge.status !== 'pre_authorized')) return null;
  if (!charge.customerId || !charge.paymentInstrumentId) return null;
  const item = await recurringItemOf(em, charge.orderId);
  if (!item) return null;
  // What the buyer was shown: the checkout line's price snapshot and quantity, not today's price row.
  const line =
    charge.checkoutSessionId &&
    (await em.findOne(
      CheckoutItemSchema,
      { checkoutSessionId: charge.checkoutSessionId, offerId: item.offerId, merchantId: charge.merchantId },
      { orderBy: { createdAt: 'asc' } },
    ));
  return createSubscription(em, {
    transactionId,
    offerId: item.offerId,
    paymentInstrumentId: charge.paymentInstrumentId,
    sold: line
      ? { amount: line.amount, firstChargeAmount: line.firstChargeAmount, quantity: line.quantity }
      : { quantity: item.quantity },
    at,
    // Renewals reference it as merchant-initiated (domain/subscriptions/subscriptions.renewal.ts).
    initialNetworkTransactionId: await networkTransactionIdOf(em, transactionId),
  });
}

/** 409 before charging when the customer already holds a live subscription to the offer's plan. */
export async function checkLivePlan(em: EntityManager, merchantId: string, customerId: string, productId: string) {
  const product = await em.findOne(ProductSchema, { id: productId, merchantId });
  if (!product) return;
  const existing = await em.findOne(SubscriptionSchema, {
    merchantId,
    customerId,
    planKey: product.productFamilyId ?? product.id,
    status: { $nin: ['cancelled', 'expired'] },
  });
  if (existing) throw alreadySubscribed(existing);
}
