/** Document 3's Subscription and Subscription transition shapes (public API: no connector id or network id). */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Subscription, SubscriptionTransition } from '../../db/entities';
import { referenceNames } from '../../db/repositories/subscriptions.repository';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The names a subscription shows beside its ids (customer, offer, product, preferred connector). */
export interface ResolvedNames {
  customerName: string | null;
  customerEmail: string | null;
  offerName: string;
  productName: string;
  connectorName: string;
}

/**
 * Resolves the names of many subscriptions (all of one merchant: a page, or one subscription) in one statement,
 * reading only that merchant's rows.
 */
export async function resolveNames(em: EntityManager, subs: Subscription[]): Promise<Map<string, ResolvedNames>> {
  if (subs.length === 0) return new Map();
  const merchantId = subs[0].merchantId;
  if (subs.some((sub) => sub.merchantId !== merchantId)) throw new Error('resolveNames takes one merchant at a time');
  const ids = <K extends keyof Subscription>(key: K) =>
    [...new Set(subs.map((s) => s[key]).filter(Boolean))] as string[];
  const names = await referenceNames(em, merchantId, {
    customerIds: ids('customerId'),
    offerIds: ids('currentOfferId'),
    productIds: ids('productId'),
    connectorIds: ids('preferredConnectorId'),
  });
  const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((row) => [row.id, row]));
  const [c, o, p, k] = [byId(names.customers), byId(names.offers), byId(names.products), byId(names.connectors)];
  return new Map(
    subs.map((sub) => [
      sub.id,
      {
        customerName: c.get(sub.customerId)?.name ?? null,
        customerEmail: c.get(sub.customerId)?.email ?? null,
        offerName: o.get(sub.currentOfferId)?.name ?? '',
        productName: p.get(sub.productId)?.name ?? '',
        connectorName: sub.preferredConnectorId ? (k.get(sub.preferredConnectorId)?.name ?? '') : '',
      },
    ]),
  );
}

export function presentSubscription(sub: Subscription, names: ResolvedNames) {
  return {
    id: sub.id,
    merchant_id: sub.merchantId,
    customer_id: sub.customerId,
    customer_name: names.customerName,
    customer_email: names.customerEmail,
    current_offer_id: sub.currentOfferId,
    offer_name: names.offerName,
    product_id: sub.productId,
    product_name: names.productName,
    product_family_id: sub.productFamilyId,
    billing_cycle: sub.billingCycle,
    currency: sub.currency,
    livemode: sub.livemode,
    current_amount: sub.currentAmount,
    current_period_start: sub.currentPeriodStart.toISOString(),
    current_period_end: sub.currentPeriodEnd.toISOString(),
    next_billing_at: iso(sub.nextBillingAt),
    billing_anchor_day: sub.billingAnchorDay,
    trial_start: iso(sub.trialStart),
    trial_end: iso(sub.trialEnd),
    dunning_started_at: iso(sub.dunningStartedAt),
    dunning_attempt_count: sub.dunningAttemptCount,
    dunning_next_retry_at: iso(sub.dunningNextRetryAt),
    cycles_completed: sub.cyclesCompleted,
    cycle_limit: sub.cycleLimit,
    status: sub.status,
    cancel_at_period_end: sub.cancelAtPeriodEnd,
    cancelled_at: iso(sub.cancelledAt),
    cancellation_reason: sub.cancellationReason,
    payment_instrument_id: sub.paymentInstrumentId,
    preferred_connector_name: names.connectorName,
    preferred_installments: sub.preferredInstallments,
    created_at: sub.createdAt.toISOString(),
    updated_at: sub.updatedAt.toISOString(),
  };
}

export type SubscriptionView = ReturnType<typeof presentSubscription>;

/** One subscription as the API and its events show it. */
export async function presentOne(em: EntityManager, sub: Subscription): Promise<SubscriptionView> {
  const names = await resolveNames(em, [sub]);
  return presentSubscription(sub, names.get(sub.id)!);
}

export function presentTransition(row: SubscriptionTransition) {
  return {
    id: row.id,
    subscription_id: row.subscriptionId,
    transition_type: row.transitionType,
    from_offer_id: row.fromOfferId,
    to_offer_id: row.toOfferId,
    from_status: row.fromStatus,
    to_status: row.toStatus,
    triggered_by: row.triggeredBy,
    actor: row.actor,
    order_id: row.orderId,
    reason: row.reason,
    metadata: row.metadata,
    created_at: row.createdAt.toISOString(),
  };
}

/** The merchant Dashboard's object: the public one plus the preferred connector and the network transaction id. */
export function presentDashboardSubscription(sub: Subscription, names: ResolvedNames) {
  return {
    ...presentSubscription(sub, names),
    preferred_connector_id: sub.preferredConnectorId,
    initial_network_transaction_id: sub.initialNetworkTransactionId,
  };
}

export async function presentDashboardOne(em: EntityManager, sub: Subscription) {
  const names = await resolveNames(em, [sub]);
  return presentDashboardSubscription(sub, names.get(sub.id)!);
}
