import { BigIntType, EntitySchema } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps';

export const CHECKOUT_STATUSES = [
  'initiated',
  'customer_identified',
  'payment_pending',
  'completed',
  'expired',
  'abandoned',
] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

/** payment sells its offer; setup saves a card for its customer (no offer, no items, a zero-amount check). */
export const CHECKOUT_MODES = ['payment', 'setup'] as const;
export type CheckoutMode = (typeof CHECKOUT_MODES)[number];

export interface CheckoutSession {
  id: string;
  merchantId: string;
  mode: CheckoutMode;
  /** null in setup mode. */
  offerId: string | null;
  customerId: string | null;
  customerEmail: string | null;
  customerName: string | null;
  /** id: the merchant named the customer; email: an inline customer or an e-mail matched one (saved cards hidden). */
  customerBoundBy: 'id' | 'email' | null;
  selectedCurrency: string | null;
  /** Stored state; a session past expiresAt reads as expired whatever is stored. */
  status: CheckoutStatus;
  externalSessionId: string | null;
  expiresAt: Date | null;
  completedAt: Date | null;
  /** Setup mode, once complete: the card it saved. */
  paymentInstrumentId: string | null;
  /** Where the hosted page sends the buyer once paid or saved ({CHECKOUT_SESSION_ID} replaced there). */
  successUrl: string | null;
  /** The hosted page's "back" link. */
  cancelUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const CheckoutSessionSchema = new EntitySchema<CheckoutSession>({
  name: 'CheckoutSession',
  tableName: 'checkout_sessions',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    mode: { type: 'string', default: 'payment' },
    offerId: { type: 'string', nullable: true },
    customerId: { type: 'string', nullable: true },
    customerEmail: { type: 'string', nullable: true },
    customerName: { type: 'string', nullable: true },
    customerBoundBy: { type: 'string', nullable: true },
    selectedCurrency: { type: 'string', nullable: true },
    status: { type: 'string' },
    externalSessionId: { type: 'string', nullable: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    completedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    paymentInstrumentId: { type: 'string', nullable: true },
    successUrl: { type: 'string', nullable: true },
    cancelUrl: { type: 'string', nullable: true },
    createdAt,
    updatedAt,
  },
});

/** A line item: a snapshot of the offer price at the moment it was added. */
export interface CheckoutItem {
  id: string;
  merchantId: string;
  checkoutSessionId: string;
  offerId: string;
  offerPriceId: string;
  currency: string;
  amount: number;
  firstChargeAmount: number | null;
  quantity: number;
  installments: number;
  createdAt: Date;
}

export const CheckoutItemSchema = new EntitySchema<CheckoutItem>({
  name: 'CheckoutItem',
  tableName: 'checkout_items',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    checkoutSessionId: { type: 'string' },
    offerId: { type: 'string' },
    offerPriceId: { type: 'string' },
    currency: { type: 'string' },
    amount: { type: new BigIntType('number') },
    firstChargeAmount: { type: new BigIntType('number'), nullable: true },
    quantity: { type: 'integer' },
    installments: { type: 'integer' },
    createdAt,
  },
});

export interface CheckoutEvent {
  id: string;
  merchantId: string;
  checkoutSessionId: string;
  eventType: string;
  sourceUrl: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: Date;
}

export const CheckoutEventSchema = new EntitySchema<CheckoutEvent>({
  name: 'CheckoutEvent',
  tableName: 'checkout_events',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    checkoutSessionId: { type: 'string' },
    eventType: { type: 'string' },
    sourceUrl: { type: 'text', nullable: true },
    utmSource: { type: 'string', nullable: true },
    utmMedium: { type: 'string', nullable: true },
    utmCampaign: { type: 'string', nullable: true },
    ipAddress: { type: 'string', nullable: true },
    userAgent: { type: 'text', nullable: true },
    metadata: { type: 'json', nullable: true },
    createdAt,
  },
});
