/**
 * A subscription is born from a paid first charge of a recurring offer (Document 3: "created by the billing
 * engine", never by a direct call): the sub_ row, its creation (and trial_start) transitions, subscription.created
 * and the transaction's subscription_id, in one database transaction, exactly once per first charge — the id
 * derives from the transaction id, so a retried activity finds the row it wrote and returns the same state.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  OfferPriceSchema,
  OfferSchema,
  ProductSchema,
  SubscriptionSchema,
  SubscriptionTransitionSchema,
  TransactionSchema,
  type Subscription,
} from '../../db/entities';
import { recordEvent } from '../events/events.outbox';
import { errors } from '../platform/errors';
import { idFromSeed } from '../platform/ids';
import { addBillingPeriods, firstCycleCharge } from '../../workflows/lib/pricing';
import type { SubscriptionState } from '../../workflows/lib/subscription-state';
import { SUBSCRIPTION_ALREADY_EXISTS } from '../../workflows/lib/subscription-rules';
import { presentOne } from './subscriptions.presenter';
import { projectState } from './subscriptions.steps';

export interface CreationInput {
  /** The paid (or, for a trial, verified) first charge. */
  transactionId: string;
  offerId: string;
  /** The saved card renewals bill. */
  paymentInstrumentId: string;
  /**
   * What was sold: the units, and the price snapshot the buyer was shown (a checkout line). Without a snapshot
   * the offer's current price for the charge's currency applies.
   */
  sold?: { quantity: number; amount?: number; firstChargeAmount?: number | null };
  /** The workflow's clock when the first charge succeeded: the period (or trial) starts here. */
  at: Date;
  initialNetworkTransactionId?: string | null;
}

const DAY_MS = 86_400_000;

/** 409 for a second live subscription to the same plan, pointing at the one to reactivate or change. */
export const alreadySubscribed = (existing: Subscription) =>
  errors.conflict(
    SUBSCRIPTION_ALREADY_EXISTS,
    `The customer already holds a live subscription to this plan (${existing.id}); change its offer with ` +
      `POST /merchants/${existing.merchantId}/subscriptions/${existing.id}/change-offer, or take back a scheduled ` +
      'cancellation with …/reactivate, instead of starting a second one',
    {
      subscription_id: existing.id,
      status: existing.status,
      reactivate_path: `/merchants/${existing.merchantId}/subscriptions/${existing.id}/reactivate`,
      change_offer_path: `/merchants/${existing.merchantId}/subscriptions/${existing.id}/change-offer`,
    },
  );

/** The workflow's starting state as stored on the row. */
export function stateOf(sub: Subscription, pendingProration = 0): SubscriptionState {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    subscriptionId: sub.id,
    organizationId: sub.organizationId,
    merchantId: sub.merchantId,
    customerId: sub.customerId,
    status: sub.status,
    offerId: sub.currentOfferId,
    productId: sub.productId,
    productFamilyId: sub.productFamilyId,
    amount: sub.currentAmount,
    quantity: sub.quantity,
    currency: sub.currency,
    billingCycle: sub.billingCycle,
    customDays: sub.customBillingDays,
    cycleLimit: sub.cycleLimit,
    anchorAt: sub.billingAnchorAt.toISOString(),
    nextDueIndex: sub.nextDueIndex,
    periodStart: sub.currentPeriodStart.toISOString(),
    periodEnd: sub.currentPeriodEnd.toISOString(),
    trialStart: iso(sub.trialStart),
    trialEnd: iso(sub.trialEnd),
    cyclesCompleted: sub.cyclesCompleted,
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
    cancelledAt: iso(sub.cancelledAt),
    cancellationReason: sub.cancellationReason,
    dunningStartedAt: iso(sub.dunningStartedAt),
    dunningAttempts: sub.dunningAttemptCount,
    paymentInstrumentId: sub.paymentInstrumentId,
    pausedFrom: null,
    pendingProration,
    retryNowAt: null,
    holdCheckAt: null,
  };
}

/** Writes the subscription of a first charge (or finds it); runs in the caller's transaction. */
export async function createSubscription(em: EntityManager, input: CreationInput): Promise<SubscriptionState> {
  const id = idFromSeed('sub', input.transactionId);
  const found = await em.findOne(SubscriptionSchema, { id });
  if (found) return stateOf(found);
  const tx = await em.findOneOrFail(TransactionSchema, { id: input.transactionId });
  if (!tx.customerId) throw errors.invalidValue('customer_id', 'a subscription needs a customer');
  const offer = await em.findOneOrFail(OfferSchema, { id: input.offerId, merchantId: tx.merchantId });
  const product = await em.findOneOrFail(ProductSchema, { id: offer.productId });
  const quantity = input.sold?.quantity ?? 1;
  const price =
    input.sold?.amount !== undefined
      ? { amount: input.sold.amount, firstChargeAmount: input.sold.firstChargeAmount ?? null }
      : await em.findOneOrFail(OfferPriceSchema, { offerId: offer.id, currency: tx.currency, deletedAt: null });
  const first = firstCycleCharge({
    freeTrial: offer.freeTrial,
    trialDays: offer.trialDays,
    setupCharge: offer.setupCharge,
    amount: price.amount,
    firstChargeAmount: price.firstChargeAmount,
  });
  const cycle = offer.billingCycle;
  const at = input.at;
  const trialEnd = first.initialStatus === 'trialing' ? new Date(at.getTime() + first.trialDays * DAY_MS) : null;
  const state: SubscriptionState = {
    subscriptionId: id,
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    customerId: tx.customerId,
    status: first.initialStatus,
    offerId: offer.id,
    productId: product.id,
    productFamilyId: product.productFamilyId,
    amount: first.recurringAmount * quantity,
    quantity,
    currency: tx.currency,
    billingCycle: cycle,
    customDays: offer.customBillingDays,
    cycleLimit: offer.cycleLimit,
    // A trial's calendar starts when it ends (the first real charge); a paid first cycle's now.
    anchorAt: (trialEnd ?? at).toISOString(),
    nextDueIndex: trialEnd ? 0 : 1,
    periodStart: at.toISOString(),
    periodEnd: (trialEnd ?? addBillingPeriods(at, cycle, offer.customBillingDays, 1) ?? at).toISOString(),
    trialStart: trialEnd ? at.toISOString() : null,
    trialEnd: trialEnd?.toISOString() ?? null,
    cyclesCompleted: trialEnd ? 0 : 1,
    cancelAtPeriodEnd: false,
    cancelledAt: null,
    cancellationReason: null,
    dunningStartedAt: null,
    dunningAttempts: 0,
    paymentInstrumentId: input.paymentInstrumentId,
    pausedFrom: null,
    pendingProration: 0,
    retryNowAt: null,
    holdCheckAt: null,
  };
  const sub = em.create(SubscriptionSchema, {
    ...(projectState(state, null) as Subscription),
    id,
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    customerId: tx.customerId,
    planKey: product.productFamilyId ?? product.id,
    preferredConnectorId: tx.connectorId,
    initialNetworkTransactionId: input.initialNetworkTransactionId ?? null,
    preferredInstallments: tx.installments ?? 1,
    country: tx.country,
    livemode: tx.livemode,
    originTransactionId: tx.id,
    lastStepKey: `${id}:creation`,
    createdAt: at,
    updatedAt: at,
  });
  // The row first, in a savepoint: a second live subscription to the plan is a 409, not a broken transaction.
  try {
    await em.transactional((inner) => inner.flush());
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    const existing = await em.fork().findOne(SubscriptionSchema, {
      merchantId: tx.merchantId,
      customerId: tx.customerId,
      planKey: product.productFamilyId ?? product.id,
      status: { $nin: ['cancelled', 'expired'] },
    });
    if (existing) throw alreadySubscribed(existing);
    throw error;
  }
  const transition = (type: 'creation' | 'trial_start', fromStatus: null | 'trialing') =>
    em.create(SubscriptionTransitionSchema, {
      id: idFromSeed('sbt', `${id}:${type}`),
      subscriptionId: id,
      merchantId: tx.merchantId,
      transitionType: type,
      fromOfferId: null,
      toOfferId: offer.id,
      fromStatus,
      toStatus: state.status,
      triggeredBy: 'system',
      actor: null,
      orderId: tx.orderId,
      reason: null,
      metadata: { first_charge: first.kind, charged: first.chargeNow },
      transitionKey: `${id}:${type}`,
      createdAt: at,
    });
  transition('creation', null);
  if (trialEnd) transition('trial_start', null);
  tx.subscriptionId = id;
  await em.flush();
  await recordEvent(em, {
    organizationId: sub.organizationId,
    merchantId: sub.merchantId,
    livemode: sub.livemode,
    type: 'subscription.created',
    object: await presentOne(em, sub),
  });
  return state;
}
