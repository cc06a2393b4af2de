/**
 * The one write path of the subscription read model: a workflow step (its new state, at most one transition, its
 * events) written in one database transaction, exactly once per step key. The workflow owns time, so every date
 * written comes from the step, never from this clock.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CustomerSchema,
  MerchantSchema,
  PaymentInstrumentSchema,
  SubscriptionSchema,
  SubscriptionTransitionSchema,
  type Subscription,
} from '../../db/entities';
import { recordEvent } from '../events/events.outbox';
import { enqueueMail } from '../mail/mail.outbox';
import { renewalAuthenticationMail } from '../mail/mail.templates';
import {
  authenticationToken,
  authenticationUrl,
  RENEWAL_AUTHENTICATION_MAIL,
  type RenewalLinkSettings,
} from './subscriptions.authentication';
import { idFromSeed } from '../platform/ids';
import {
  billingAnchorDay,
  nextBillingAt,
  type InstrumentActionRequired,
  type SubscriptionState,
  type SubscriptionStep,
} from '../../workflows/lib/subscription-state';
import { presentInstrument } from '../payment-instruments/payment-instruments.presenter';
import { presentOne } from './subscriptions.presenter';

const date = (value: string | null) => (value === null ? null : new Date(value));

/** The read-model columns the workflow's state decides. */
export function projectState(state: SubscriptionState, dunningNextRetryAt: string | null): Partial<Subscription> {
  return {
    status: state.status,
    currentOfferId: state.offerId,
    productId: state.productId,
    productFamilyId: state.productFamilyId,
    currentAmount: state.amount,
    quantity: state.quantity ?? 1,
    currency: state.currency,
    billingCycle: state.billingCycle,
    customBillingDays: state.customDays,
    cycleLimit: state.cycleLimit,
    billingAnchorAt: new Date(state.anchorAt),
    billingAnchorDay: billingAnchorDay(state),
    nextDueIndex: state.nextDueIndex,
    currentPeriodStart: new Date(state.periodStart),
    currentPeriodEnd: new Date(state.periodEnd),
    nextBillingAt: nextBillingAt(state, date(dunningNextRetryAt)),
    trialStart: date(state.trialStart),
    trialEnd: date(state.trialEnd),
    cyclesCompleted: state.cyclesCompleted,
    cancelAtPeriodEnd: state.cancelAtPeriodEnd,
    cancelledAt: date(state.cancelledAt),
    cancellationReason: state.cancellationReason,
    dunningStartedAt: date(state.dunningStartedAt),
    dunningAttemptCount: state.dunningAttempts,
    dunningNextRetryAt: state.status === 'dunning' ? date(dunningNextRetryAt) : null,
    paymentInstrumentId: state.paymentInstrumentId,
  };
}

/**
 * Writes the step unless its key was written before (then nothing: a retried activity, or a replayed workflow).
 * Must run inside the caller's transaction (events are recorded in it). Returns false for a repeat.
 */
export async function applySubscriptionStep(
  em: EntityManager,
  step: SubscriptionStep,
  links?: RenewalLinkSettings,
): Promise<boolean> {
  const at = new Date(step.at);
  const sub = await em.findOne(
    SubscriptionSchema,
    { id: step.state.subscriptionId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!sub) throw new Error(`subscription ${step.state.subscriptionId} does not exist`);
  // The workflow writes its steps one after the other, so only the last one can be retried (a renewal has no
  // transition row to recognise it by); the locked row's last_step_key says whether it was written.
  if (sub.lastStepKey === step.key) return false;
  const t = step.transition;
  em.assign(sub, { ...projectState(step.state, step.dunningNextRetryAt), lastStepKey: step.key, updatedAt: at });
  if (t) {
    em.create(SubscriptionTransitionSchema, {
      id: idFromSeed('sbt', step.key),
      subscriptionId: sub.id,
      merchantId: sub.merchantId,
      transitionType: t.type,
      fromOfferId: t.fromOfferId,
      toOfferId: t.toOfferId,
      fromStatus: t.fromStatus,
      toStatus: step.state.status,
      triggeredBy: t.triggeredBy,
      actor: t.triggeredBy === 'admin' ? (t.actor ?? null) : null,
      orderId: t.orderId ?? null,
      reason: t.reason ?? null,
      metadata: t.metadata ?? null,
      transitionKey: step.key,
      createdAt: at,
    });
  }
  await em.flush();
  if (step.events.length) {
    const object = await presentOne(em, sub);
    for (const type of step.events) {
      await recordEvent(em, {
        organizationId: sub.organizationId,
        merchantId: sub.merchantId,
        livemode: sub.livemode,
        type,
        object,
      });
    }
  }
  if (step.actionRequired) await recordActionRequired(em, sub, step.actionRequired, at, links);
  return true;
}

/**
 * payment_method.action_required (Document 1: a stored card reported no longer valid, no replacement available —
 * there is no account updater, so never one — or a renewal the issuer takes only with the customer present):
 * data.object is the payment instrument as the API presents it (at the step's time), followed by action_required,
 * why and the subscription it bills, and for authentication_required the hosted link (`url`), which the
 * customer is also e-mailed (docs/events.md).
 */
async function recordActionRequired(
  em: EntityManager,
  sub: Subscription,
  action: InstrumentActionRequired,
  at: Date,
  links: RenewalLinkSettings | undefined,
) {
  const card = await em.findOne(PaymentInstrumentSchema, {
    id: action.paymentInstrumentId,
    merchantId: sub.merchantId,
  });
  if (!card) return;
  const url = action.link ? await mailAuthenticationLink(em, sub, action.link, links) : undefined;
  await recordEvent(em, {
    organizationId: sub.organizationId,
    merchantId: sub.merchantId,
    livemode: sub.livemode,
    type: 'payment_method.action_required',
    object: {
      ...presentInstrument(card, at),
      action_required: {
        reason: action.reason,
        subscription_id: sub.id,
        order_id: action.orderId,
        ...(url ? { url } : {}),
      },
    },
  });
}

/** The renewal's authentication link, e-mailed to the customer (when they have an address) with this step. */
async function mailAuthenticationLink(
  em: EntityManager,
  sub: Subscription,
  link: NonNullable<InstrumentActionRequired['link']>,
  links: RenewalLinkSettings | undefined,
): Promise<string> {
  if (!links) throw new Error('renewal authentication links need the worker started with renewalLinks settings');
  const url = authenticationUrl(links.publicBaseUrl, authenticationToken(links.keys, sub.id, link.linkId));
  const [customer, merchant] = await Promise.all([
    em.findOne(CustomerSchema, { id: sub.customerId, merchantId: sub.merchantId }, { fields: ['email'] }),
    em.findOne(MerchantSchema, { id: sub.merchantId }, { fields: ['name'] }),
  ]);
  if (customer?.email) {
    const content = renewalAuthenticationMail({ ...link, merchantName: merchant?.name ?? '', url });
    await enqueueMail(em, links.keys, { kind: RENEWAL_AUTHENTICATION_MAIL, to: customer.email, ...content });
  }
  return url;
}
