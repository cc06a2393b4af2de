/**
 * Subscription fixtures: a merchant with a real test-mode connector, a customer with a saved card, a recurring
 * offer, a real first charge through POST /transactions, and the subscription the billing engine writes for it.
 */
import { expect } from 'chai';
import {
  EventSchema,
  OfferSchema,
  SubscriptionSchema,
  SubscriptionTransitionSchema,
  TransactionSchema,
} from '../../db/entities';
import { createSubscription } from '../../domain/subscriptions/subscriptions.creation';
import { networkTransactionIdOf } from '../../domain/subscriptions/subscriptions.first-transaction';
import type { SubscriptionState } from '../../workflows/lib/subscription-state';
import type { TargetOffer } from '../../workflows/lib/subscription-moves';
import { createOffer, type OfferFixture } from './catalog';
import { createTenant, type Tenant } from './factories';
import { stack } from './stack';
import { cascade, charge, type CascadeConnector } from './transactions';
import { createCustomer, saveCard, type CardInput } from './vault';

export interface Subscribed {
  tenant: Tenant;
  connector: CascadeConnector;
  customerId: string;
  instrumentId: string;
  offerId: string;
  familyId: string;
  state: SubscriptionState;
}

/** A subscription to a USD offer (amount 999 unless the fixture says otherwise) that started at `at`, on `card` (visa). */
export async function subscribed(
  at: Date,
  fixture: OfferFixture & { cycleLimit?: number } = {},
  existing?: { tenant: Tenant; connector: CascadeConnector },
  card?: CardInput & { brand?: string },
): Promise<Subscribed> {
  const tenant = existing?.tenant ?? (await createTenant());
  const connector = existing?.connector ?? (await cascade(tenant, ['provider_a']))[0];
  const customerId = await createCustomer(tenant);
  const instrument = await saveCard(tenant, customerId, card);
  const { offer, product } = await createOffer(tenant.merchant_id, {
    prices: [{ currency: 'USD', amount: 999, isDefault: true }],
    ...fixture,
  });
  const em = stack().orm.em.fork();
  if (fixture.cycleLimit) await em.nativeUpdate(OfferSchema, { id: offer.id }, { cycleLimit: fixture.cycleLimit });
  const trial = fixture.freeTrial === true;
  const first = await charge(tenant, {
    payment_method: 'credit_card',
    charge_type: trial ? 'setup_verification' : 'payment',
    country: 'US',
    amount: trial ? 0 : 999,
    currency: 'USD',
    customer_id: customerId,
    payment_instrument_id: instrument.id,
  });
  expect(first.status, first.text).to.equal(201);
  expect(first.body.data.status).to.equal('authorized');
  const state = await em.transactional(async (tx) =>
    createSubscription(tx, {
      transactionId: first.body.data.id,
      offerId: offer.id,
      paymentInstrumentId: instrument.id,
      at,
      initialNetworkTransactionId: await networkTransactionIdOf(tx, first.body.data.id),
    }),
  );
  return {
    tenant,
    connector,
    customerId,
    instrumentId: instrument.id,
    offerId: offer.id,
    familyId: product.productFamilyId!,
    state,
  };
}

export const storedSubscription = (id: string) => stack().orm.em.fork().findOneOrFail(SubscriptionSchema, { id });

/** The subscription.* events of a merchant in the order they were recorded, as [type, data.object]. */
export async function subscriptionEvents(merchantId: string): Promise<Array<[string, any]>> {
  const rows = await stack()
    .orm.em.fork()
    .find(EventSchema, { merchantId, type: { $like: 'subscription.%' } }, { orderBy: { createdAt: 'asc' } });
  return rows.map((row) => [row.type, row.data]);
}

/** A change-offer target: a new offer of the subscription's family at `amount` (unit price, USD). */
export async function offerTarget(
  sub: Subscribed,
  amount: number,
  behavior: TargetOffer['behavior'],
  billingCycle: TargetOffer['billingCycle'] = 'monthly',
): Promise<TargetOffer> {
  const { offer, product } = await createOffer(sub.tenant.merchant_id, {
    familyId: sub.familyId,
    billingCycle,
    prices: [{ currency: 'USD', amount, isDefault: true }],
  });
  return {
    offerId: offer.id,
    productId: product.id,
    productFamilyId: sub.familyId,
    amount,
    currency: 'USD',
    billingCycle,
    customDays: null,
    cycleLimit: null,
    behavior,
  };
}

/** The subscription's renewal charges (not its first charge), oldest first. */
export const renewalCharges = (sub: Subscribed) =>
  stack()
    .orm.em.fork()
    .find(TransactionSchema, { subscriptionId: sub.state.subscriptionId }, { orderBy: { createdAt: 'asc' } })
    .then((all) => all.filter((tx) => tx.metadata?.subscription_id === sub.state.subscriptionId));

/** The subscription's transitions, oldest first. */
export const transitionsOf = (sub: Subscribed) =>
  stack()
    .orm.em.fork()
    .find(
      SubscriptionTransitionSchema,
      { subscriptionId: sub.state.subscriptionId },
      { orderBy: { createdAt: 'asc' } },
    );
