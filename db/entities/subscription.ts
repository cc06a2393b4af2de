/** Subscriptions and their append-only transitions (Document 3, "Subscription"); owned by domain/subscriptions. */
import { BigIntType, EntitySchema } from '@mikro-orm/core';
import type { BillingCycle } from './offer';
import { createdAt, updatedAt } from './timestamps';

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'dunning', 'paused', 'cancelled', 'expired'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const TRANSITION_TYPES = [
  'creation',
  'upgrade',
  'downgrade',
  'reactivation',
  'cancellation',
  'trial_start',
  'trial_conversion',
  'payment_method_change',
  'dunning_entry',
  'dunning_retry',
  'dunning_cancelled',
  'expiration',
  'cycle_limit_renewed',
  'pause',
  'resume',
] as const;
export type TransitionType = (typeof TRANSITION_TYPES)[number];
export type TransitionTrigger = 'customer' | 'system' | 'admin';

const at = { type: 'Date', columnType: 'timestamptz(3)' } as const;
const nullableAt = { ...at, nullable: true } as const;

export interface Subscription {
  id: string;
  organizationId: string;
  merchantId: string;
  customerId: string;
  currentOfferId: string;
  productId: string;
  productFamilyId: string | null;
  /** The family, or the product without one: one live subscription per plan key and customer. */
  planKey: string;
  billingCycle: BillingCycle;
  customBillingDays: number | null;
  currency: string;
  currentAmount: number;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  nextBillingAt: Date | null;
  billingAnchorDay: number | null;
  /** The calendar's anchor: charge number n falls due at anchor + n cycles (month-end clamped). */
  billingAnchorAt: Date;
  nextDueIndex: number;
  trialStart: Date | null;
  trialEnd: Date | null;
  dunningStartedAt: Date | null;
  dunningAttemptCount: number;
  dunningNextRetryAt: Date | null;
  cyclesCompleted: number;
  cycleLimit: number | null;
  status: SubscriptionStatus;
  cancelAtPeriodEnd: boolean;
  cancelledAt: Date | null;
  cancellationReason: string | null;
  paymentInstrumentId: string;
  preferredConnectorId: string | null;
  initialNetworkTransactionId: string | null;
  preferredInstallments: number;
  /** Units billed each cycle: current_amount is the unit price times this (a checkout's line quantity). */
  quantity: number;
  country: string;
  /** Its first charge's mode: false for test data (a test clock's customer, a test-mode connector). */
  livemode: boolean;
  originTransactionId: string;
  /** The workflow step written last: steps are sequential, so a retry of it is recognised and skipped. */
  lastStepKey: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const SubscriptionSchema = new EntitySchema<Subscription>({
  name: 'Subscription',
  tableName: 'subscriptions',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    merchantId: { type: 'string' },
    customerId: { type: 'string' },
    currentOfferId: { type: 'string' },
    productId: { type: 'string' },
    productFamilyId: { type: 'string', nullable: true },
    planKey: { type: 'string' },
    billingCycle: { type: 'string' },
    customBillingDays: { type: 'integer', nullable: true },
    currency: { type: 'string' },
    currentAmount: { type: new BigIntType('number') },
    currentPeriodStart: at,
    currentPeriodEnd: at,
    nextBillingAt: nullableAt,
    billingAnchorDay: { type: 'integer', nullable: true },
    billingAnchorAt: at,
    nextDueIndex: { type: 'integer' },
    trialStart: nullableAt,
    trialEnd: nullableAt,
    dunningStartedAt: nullableAt,
    dunningAttemptCount: { type: 'integer' },
    dunningNextRetryAt: nullableAt,
    cyclesCompleted: { type: 'integer' },
    cycleLimit: { type: 'integer', nullable: true },
    status: { type: 'string' },
    cancelAtPeriodEnd: { type: 'boolean' },
    cancelledAt: nullableAt,
    cancellationReason: { type: 'string', nullable: true },
    paymentInstrumentId: { type: 'string' },
    preferredConnectorId: { type: 'string', nullable: true },
    initialNetworkTransactionId: { type: 'string', nullable: true },
    preferredInstallments: { type: 'integer' },
    quantity: { type: 'integer', default: 1 },
    country: { type: 'string' },
    livemode: { type: 'boolean' },
    originTransactionId: { type: 'string' },
    lastStepKey: { type: 'string', nullable: true },
    createdAt,
    updatedAt,
  },
});

export interface ActorSnapshot {
  id: string;
  type: string;
  name: string | null;
  email: string | null;
}

export interface SubscriptionTransition {
  id: string;
  subscriptionId: string;
  merchantId: string;
  transitionType: TransitionType;
  fromOfferId: string | null;
  toOfferId: string | null;
  fromStatus: SubscriptionStatus | null;
  toStatus: SubscriptionStatus;
  triggeredBy: TransitionTrigger;
  actor: ActorSnapshot | null;
  orderId: string | null;
  reason: string | null;
  metadata: Record<string, unknown> | null;
  transitionKey: string;
  createdAt: Date;
  /** Write order (identity column, never written by us): breaks ties between transitions of the same instant. */
  seq?: number;
}

export const SubscriptionTransitionSchema = new EntitySchema<SubscriptionTransition>({
  name: 'SubscriptionTransition',
  tableName: 'subscription_transitions',
  properties: {
    id: { type: 'string', primary: true },
    subscriptionId: { type: 'string' },
    merchantId: { type: 'string' },
    transitionType: { type: 'string' },
    fromOfferId: { type: 'string', nullable: true },
    toOfferId: { type: 'string', nullable: true },
    fromStatus: { type: 'string', nullable: true },
    toStatus: { type: 'string' },
    triggeredBy: { type: 'string' },
    actor: { type: 'json', nullable: true },
    orderId: { type: 'string', nullable: true },
    reason: { type: 'string', nullable: true },
    metadata: { type: 'json', nullable: true },
    transitionKey: { type: 'string' },
    createdAt: at,
    seq: { type: 'integer', persist: false },
  },
});
