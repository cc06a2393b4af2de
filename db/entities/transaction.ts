/** Transactions, their attempt timeline, orders (items, status history), refunds and inbound provider events. */
import { BigIntType, EntitySchema } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps';
import type { OrderItemSnapshot } from '../../workflows/lib/transaction-types';
import type { StoredThreeDs } from '../../workflows/lib/three-ds';

export const TRANSACTION_STATUSES = [
  'pending',
  'pre_authorized',
  'authorized',
  'failed',
  'canceled',
  'voided',
  'charged_back',
  'refund_pending',
  'capture_pending',
  'refunded',
  'partially_refunded',
  'expired',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
export const PAYMENT_METHODS = ['credit_card', 'debit_card', 'pix', 'boleto', 'wallet'] as const;
export type TransactionPaymentMethod = (typeof PAYMENT_METHODS)[number];
export const ORDER_STATUSES = [
  'pending',
  'pre_authorized',
  'authorized',
  'failed',
  'canceled',
  'refund_pending',
  'partially_refunded',
  'refunded',
  'charged_back',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const ORDER_TYPES = ['api', 'checkout', 'renewal', 'trial_setup', 'card_setup'] as const;

const money = { type: new BigIntType('number') } as const;
const at = { type: 'Date', columnType: 'timestamptz(3)' } as const;

export interface Transaction {
  id: string;
  organizationId: string;
  merchantId: string;
  orderId: string | null;
  subscriptionId: string | null;
  externalOrderId: string | null;
  customerId: string | null;
  paymentInstrumentId: string | null;
  cardTokenId: string | null;
  checkoutSessionId: string | null;
  amount: number;
  amountAuthorized: number;
  amountCaptured: number;
  amountRefunded: number;
  currency: string;
  paymentMethod: TransactionPaymentMethod;
  walletType: string | null;
  chargeType: 'payment' | 'setup_verification';
  /** The charge's mode, fixed when the row is written: false for a test charge (test-mode connectors, test clocks). */
  livemode: boolean;
  country: string;
  status: TransactionStatus;
  capture: boolean;
  riskScore: number | null;
  installments: number | null;
  routingProfileId: string | null;
  appliedRoutingRuleId: string | null;
  connectorId: string | null;
  providerReference: string | null;
  paymentInstructions: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  workflowId: string;
  /** The capture or void whose move is under way (set by its begin, cleared by its finish): no other may start. */
  pendingOperationId?: string | null;
  expiresAt: Date | null;
  /** Why it failed, expired or was canceled (null otherwise). */
  failureCode: string | null;
  failureMessage: string | null;
  /** The provider's own code for failureCode (the one vocabulary); null when no provider decided. */
  providerCode: string | null;
  /** How routing planned the charge (skipped connectors and why, approval-rate order); null before. */
  routingDecision?: Record<string, unknown> | null;
  /** Where the buyer's browser goes once a 3-D Secure challenge is over (card charges; null: none given). */
  returnUrl?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const TransactionSchema = new EntitySchema<Transaction>({
  name: 'Transaction',
  tableName: 'transactions',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    merchantId: { type: 'string' },
    orderId: { type: 'string', nullable: true },
    subscriptionId: { type: 'string', nullable: true },
    externalOrderId: { type: 'string', nullable: true },
    customerId: { type: 'string', nullable: true },
    paymentInstrumentId: { type: 'string', nullable: true },
    cardTokenId: { type: 'string', nullable: true },
    checkoutSessionId: { type: 'string', nullable: true },
    amount: money,
    amountAuthorized: money,
    amountCaptured: money,
    amountRefunded: money,
    currency: { type: 'string' },
    paymentMethod: { type: 'string' },
    walletType: { type: 'string', nullable: true },
    chargeType: { type: 'string' },
    livemode: { type: 'boolean' },
    country: { type: 'string' },
    status: { type: 'string' },
    capture: { type: 'boolean' },
    riskScore: { type: 'integer', nullable: true },
    installments: { type: 'integer', nullable: true },
    routingProfileId: { type: 'string', nullable: true },
    appliedRoutingRuleId: { type: 'string', nullable: true },
    connectorId: { type: 'string', nullable: true },
    providerReference: { type: 'string', nullable: true },
    paymentInstructions: { type: 'json', nullable: true },
    metadata: { type: 'json', nullable: true },
    workflowId: { type: 'string' },
    pendingOperationId: { type: 'string', nullable: true },
    expiresAt: { ...at, nullable: true },
    failureCode: { type: 'string', nullable: true },
    failureMessage: { type: 'string', nullable: true },
    providerCode: { type: 'string', nullable: true },
    routingDecision: { type: 'json', nullable: true },
    returnUrl: { type: 'text', nullable: true },
    createdAt,
    updatedAt,
  },
});

export type AttemptStatus = 'pending' | 'success' | 'failed' | 'error';

export interface TransactionAttempt {
  id: string;
  transactionId: string;
  attemptNumber: number;
  isFallback: boolean;
  connectorId: string;
  providerSlug: string;
  routingNodeId: string | null;
  status: AttemptStatus;
  outcome: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  errorCategory: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  providerReference: string | null;
  /** The card network's id of an approved card attempt, when the provider returns it (merchant-initiated renewals). */
  networkTransactionId: string | null;
  /** How the attempt was authenticated (3-D Secure); null on attempts that predate it or never reached a provider. */
  threeDs?: StoredThreeDs | null;
}

export const TransactionAttemptSchema = new EntitySchema<TransactionAttempt>({
  name: 'TransactionAttempt',
  tableName: 'transaction_attempts',
  properties: {
    id: { type: 'uuid', primary: true },
    transactionId: { type: 'string' },
    attemptNumber: { type: 'integer' },
    isFallback: { type: 'boolean' },
    connectorId: { type: 'string' },
    providerSlug: { type: 'string' },
    routingNodeId: { type: 'string', nullable: true },
    status: { type: 'string' },
    outcome: { type: 'string', nullable: true },
    startedAt: at,
    finishedAt: { ...at, nullable: true },
    errorCategory: { type: 'string', nullable: true },
    errorCode: { type: 'string', nullable: true },
    errorMessage: { type: 'text', nullable: true },
    providerReference: { type: 'string', nullable: true },
    networkTransactionId: { type: 'string', nullable: true },
    threeDs: { type: 'json', fieldName: 'three_ds', nullable: true },
  },
});

export interface Order {
  id: string;
  organizationId: string;
  merchantId: string;
  customerId: string | null;
  externalOrderId: string | null;
  checkoutSessionId: string | null;
  orderType: (typeof ORDER_TYPES)[number];
  recurrence: 'none' | 'initial' | 'subsequent' | 'unscheduled';
  totalAmount: number;
  currency: string;
  status: OrderStatus;
  metadata: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

export const OrderSchema = new EntitySchema<Order>({
  name: 'Order',
  tableName: 'orders',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    merchantId: { type: 'string' },
    customerId: { type: 'string', nullable: true },
    externalOrderId: { type: 'string', nullable: true },
    checkoutSessionId: { type: 'string', nullable: true },
    orderType: { type: 'string' },
    recurrence: { type: 'string' },
    totalAmount: money,
    currency: { type: 'string' },
    status: { type: 'string' },
    metadata: { type: 'json', nullable: true },
    createdAt,
    updatedAt,
  },
});

/** The snapshot the charge workflow carries, as stored. */
export interface OrderItem extends OrderItemSnapshot {
  id: string;
  orderId: string;
  createdAt: Date;
}

export const OrderItemSchema = new EntitySchema<OrderItem>({
  name: 'OrderItem',
  tableName: 'order_items',
  properties: {
    id: { type: 'uuid', primary: true },
    orderId: { type: 'string' },
    productId: { type: 'string' },
    offerId: { type: 'string' },
    productName: { type: 'string' },
    offerName: { type: 'string' },
    billingCycle: { type: 'string', nullable: true },
    cycleLimit: { type: 'integer', nullable: true },
    isFirstCharge: { type: 'boolean' },
    quantity: { type: 'integer' },
    unitAmount: money,
    totalAmount: money,
    currency: { type: 'string' },
    installments: { type: 'integer', nullable: true },
    createdAt,
  },
});

export interface OrderStatusHistory {
  id: string;
  orderId: string;
  fromStatus: string | null;
  toStatus: string;
  triggeredBy: 'api' | 'system' | 'psp_webhook';
  transitionKey: string;
  /** Insert order under the order's row lock: the chain's order (created_at can tie or, before 20261240, invert). */
  seq: number;
  createdAt: Date;
}

export const OrderStatusHistorySchema = new EntitySchema<OrderStatusHistory>({
  name: 'OrderStatusHistory',
  tableName: 'order_status_history',
  properties: {
    id: { type: 'uuid', primary: true },
    orderId: { type: 'string' },
    fromStatus: { type: 'string', nullable: true },
    toStatus: { type: 'string' },
    triggeredBy: { type: 'string' },
    transitionKey: { type: 'string' },
    // Read as a JS number (the default bigint mapping hydrates a BigInt, which JSON cannot serialize).
    seq: { type: new BigIntType('number'), persist: false },
    createdAt,
  },
});

export interface Refund {
  id: string;
  organizationId: string;
  merchantId: string;
  transactionId: string;
  amount: number;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed';
  reason: string | null;
  providerReference: string | null;
  errorCode: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

export const RefundSchema = new EntitySchema<Refund>({
  name: 'Refund',
  tableName: 'refunds',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    merchantId: { type: 'string' },
    transactionId: { type: 'string' },
    amount: money,
    currency: { type: 'string' },
    status: { type: 'string' },
    reason: { type: 'string', nullable: true },
    providerReference: { type: 'string', nullable: true },
    errorCode: { type: 'string', nullable: true },
    metadata: { type: 'json', nullable: true },
    createdAt,
    updatedAt,
  },
});
