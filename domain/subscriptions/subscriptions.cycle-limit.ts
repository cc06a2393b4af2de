/**
 * A subscription reaching its cycle limit on an offer with renew_after_cycle_limit: a new subscription is created
 * "instead of expiry" (Document 2) — the old one ends (status expired, transition cycle_limit_renewed, and no
 * subscription.expired: integrators see subscription.created of the successor) and the new one starts on the
 * renewal offer (or the same one), with the units sold and any unbilled proration carried over, in the same
 * database transaction — its first cycle is charged at once by its own workflow. The new id derives
 * from the old one, so a retried activity returns the subscription it wrote. Its origin_transaction_id names the
 * subscription it renews (it has no first charge of its own).
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  OfferPriceSchema,
  OfferSchema,
  ProductSchema,
  SubscriptionSchema,
  SubscriptionTransitionSchema,
  type Subscription,
} from '../../db/entities';
import { recordEvent } from '../events/events.outbox';
import { idFromSeed } from '../platform/ids';
import { addBillingPeriods } from '../../workflows/lib/pricing';
import type { SubscriptionState } from '../../workflows/lib/subscription-state';
import { stateOf } from './subscriptions.creation';
import { presentOne } from './subscriptions.presenter';
import { applySubscriptionStep, projectState } from './subscriptions.steps';

export interface CycleLimitRenewal {
  state: SubscriptionState;
  /** The workflow's step key for the old subscription's expiry. */
  key: string;
  at: Date;
}

/** The new subscription's starting state, or null when the offer does not renew (the caller expires it). */
export async function renewAtCycleLimit(
  em: EntityManager,
  input: CycleLimitRenewal,
): Promise<SubscriptionState | null> {
  const newId = idFromSeed('sub', `${input.state.subscriptionId}:cycle_limit_renewal`);
  const written = await em.findOne(SubscriptionSchema, { id: newId });
  if (written) return stateOf(written, input.state.pendingProration);
  const old = await em.findOneOrFail(
    SubscriptionSchema,
    { id: input.state.subscriptionId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  const offer = await em.findOneOrFail(OfferSchema, { id: old.currentOfferId });
  if (!offer.renewAfterCycleLimit) return null;
  const target = await em.findOne(OfferSchema, { id: offer.renewalOfferId ?? offer.id, deletedAt: null });
  const price =
    target && (await em.findOne(OfferPriceSchema, { offerId: target.id, currency: old.currency, deletedAt: null }));
  if (!target || !price) return null;
  const product = await em.findOneOrFail(ProductSchema, { id: target.productId });
  await applySubscriptionStep(em, {
    state: { ...input.state, status: 'expired' },
    key: input.key,
    at: input.at.toISOString(),
    transition: {
      type: 'cycle_limit_renewed',
      fromStatus: input.state.status,
      fromOfferId: old.currentOfferId,
      toOfferId: target.id,
      triggeredBy: 'system',
      metadata: { renewed_as: newId },
    },
    events: [],
    dunningNextRetryAt: null,
  });
  const at = input.at;
  const quantity = input.state.quantity ?? 1;
  const state: SubscriptionState = {
    // The workflow's state, not the row: it holds what the row lacks (an unbilled proration, the units).
    ...input.state,
    subscriptionId: newId,
    status: 'active',
    offerId: target.id,
    productId: product.id,
    productFamilyId: product.productFamilyId,
    amount: price.amount * quantity,
    quantity,
    billingCycle: target.billingCycle,
    customDays: target.customBillingDays,
    cycleLimit: target.cycleLimit,
    // The first cycle is due now: the new workflow charges it at once.
    anchorAt: at.toISOString(),
    nextDueIndex: 0,
    periodStart: at.toISOString(),
    periodEnd: (addBillingPeriods(at, target.billingCycle, target.customBillingDays, 1) ?? at).toISOString(),
    trialStart: null,
    trialEnd: null,
    cyclesCompleted: 0,
    cancelAtPeriodEnd: false,
    cancelledAt: null,
    cancellationReason: null,
    dunningStartedAt: null,
    dunningAttempts: 0,
    pausedFrom: null,
    retryNowAt: null,
    holdCheckAt: null,
    heldSince: null,
    settling: null,
  };
  const sub = em.create(SubscriptionSchema, {
    ...(projectState(state, null) as Subscription),
    id: newId,
    organizationId: old.organizationId,
    merchantId: old.merchantId,
    customerId: old.customerId,
    planKey: product.productFamilyId ?? product.id,
    preferredConnectorId: old.preferredConnectorId,
    initialNetworkTransactionId: old.initialNetworkTransactionId,
    preferredInstallments: old.preferredInstallments,
    country: old.country,
    livemode: old.livemode,
    originTransactionId: old.id,
    lastStepKey: `${newId}:creation`,
    createdAt: at,
    updatedAt: at,
  });
  await em.flush();
  em.create(SubscriptionTransitionSchema, {
    id: idFromSeed('sbt', `${newId}:creation`),
    subscriptionId: newId,
    merchantId: old.merchantId,
    transitionType: 'creation',
    fromOfferId: null,
    toOfferId: target.id,
    fromStatus: null,
    toStatus: 'active',
    triggeredBy: 'system',
    actor: null,
    orderId: null,
    reason: null,
    metadata: { renewed_from: old.id },
    transitionKey: `${newId}:creation`,
    createdAt: at,
  });
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
