/** GET /sessions/checkout: the checkout a browser session was opened for, what it may pay with, and saved cards. */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CheckoutItemSchema,
  CheckoutSessionSchema,
  CustomerSchema,
  TestClockSchema,
  type BrowserSession,
  type CheckoutItem,
  type CheckoutSession,
  type CheckoutStatus,
  type PaymentInstrument,
} from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { effectiveStatus } from '../checkout-sessions/checkout-status.rules';
import { chargeableInstruments } from '../payment-instruments/payment-instruments.service';
import type { PaymentSettings } from './payment-settings.service';
import { checkoutPaymentSettings } from '../routing/routing-reach.service';
import { checkoutSummary, type CheckoutSummary } from './checkout-summary.service';
import { latestCheckoutPayment, type CheckoutPayment } from './checkout-payment.service';

export interface BrowserCheckoutView {
  checkout: CheckoutSession;
  status: CheckoutStatus;
  items: CheckoutItem[];
  settings: PaymentSettings;
  instruments: PaymentInstrument[];
  summary: CheckoutSummary;
  payment: CheckoutPayment | null;
}

const PAYABLE: readonly CheckoutStatus[] = ['initiated', 'customer_identified', 'payment_pending'];

/**
 * The time the checkout's dates (a trial's end, the first billing) are counted from: its customer's test clock's, as
 * the subscription it starts will be; otherwise now.
 */
async function clockTimeOf(em: EntityManager, checkout: CheckoutSession, now: Date): Promise<Date> {
  if (!checkout.customerId) return now;
  const customer = await em.findOne(
    CustomerSchema,
    { id: checkout.customerId, merchantId: checkout.merchantId },
    { fields: ['testClockId'] },
  );
  if (!customer?.testClockId) return now;
  const clock = await em.findOne(
    TestClockSchema,
    { id: customer.testClockId, merchantId: checkout.merchantId, deletedAt: null },
    { fields: ['frozenTime'] },
  );
  return clock?.frozenTime ?? now;
}

export async function browserCheckout(
  em: EntityManager,
  session: BrowserSession,
  now: Date,
): Promise<BrowserCheckoutView> {
  if (!session.checkoutSessionId) {
    throw errors.notFound(
      'This browser session was not created for a checkout session (send checkoutSessionId to POST /sessions)',
    );
  }
  const checkout = await em.findOneOrFail(CheckoutSessionSchema, { id: session.checkoutSessionId });
  const items = await em.find(
    CheckoutItemSchema,
    { checkoutSessionId: checkout.id },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  const status = effectiveStatus(checkout, now);
  return {
    checkout,
    status,
    items,
    // Only what the merchant's routing can charge, in the checkout's currency.
    settings: await checkoutPaymentSettings(em, session.merchantId, items[0]?.currency ?? checkout.selectedCurrency),
    // Saved cards only while the checkout can still be paid (an ended checkout's link shows no card data), and only
    // of a customer the merchant named by id: anyone can type someone else's e-mail into a guest checkout. A setup
    // checkout saves a new card, so it offers none.
    instruments:
      checkout.mode === 'payment' &&
      checkout.customerId &&
      checkout.customerBoundBy === 'id' &&
      PAYABLE.includes(status)
        ? await chargeableInstruments(em, session.merchantId, checkout.customerId, now)
        : [],
    summary: await checkoutSummary(em, items, checkout.selectedCurrency, await clockTimeOf(em, checkout, now)),
    payment: await latestCheckoutPayment(em, checkout, now),
  };
}
