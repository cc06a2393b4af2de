import { Type } from '@sinclair/typebox';
import {
  Currency,
  Country,
  Id,
  Metadata,
  Money,
  Nullable,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';

export const SESSION_METADATA_MAX_BYTES = 5 * 1024;

export const CreateBrowserSessionBody = StrictObject({
  sdkVersion: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  checkoutSessionId: Type.Optional(Id('cks')),
  metadata: Type.Optional(Metadata(SESSION_METADATA_MAX_BYTES)),
});

export const BrowserSessionParams = StrictObject({ sessionId: Id('bs') });

const MinMax = Nullable(StrictObject({ min: Type.Integer(), max: Type.Integer() }));
export const InstallmentOptionsSchema = StrictObject({
  credit_card: MinMax,
  debit_card: MinMax,
  pix: MinMax,
  boleto: MinMax,
  wallet: MinMax,
});

export const BrowserSessionSchema = StrictObject({
  sessionId: Type.String(),
  expiresAt: Timestamp,
  merchant: StrictObject({ id: Type.String(), name: Type.String(), organizationId: Type.String() }),
  capabilities: StrictObject({
    cards: Type.Boolean(),
    pix: Type.Boolean(),
    applePay: Type.Boolean(),
    googlePay: Type.Boolean(),
  }),
  settings: StrictObject({
    allowedCardBrands: Type.Array(Type.String()),
    requireCvc: Type.Boolean(),
    requireCardholderName: Type.Boolean(),
    collectBillingAddress: Type.Boolean(),
  }),
  sdk: StrictObject({ sriHash: Type.String(), sriExpiresAt: Timestamp }),
  installmentsSupported: Type.Boolean(),
  installmentOptions: InstallmentOptionsSchema,
  /** Additive: the key card data is encrypted to (docs/vault.md). */
  encryption: StrictObject({
    alg: Type.Literal('ECDH-ES'),
    enc: Type.Literal('A256GCM'),
    kid: Type.String(),
    jwk: StrictObject({ kty: Type.Literal('EC'), crv: Type.Literal('P-256'), x: Type.String(), y: Type.String() }),
  }),
});

const CheckoutItemView = StrictObject({
  id: Type.String(),
  checkoutSessionId: Type.String(),
  offerId: Type.String(),
  currency: Type.String(),
  amount: Money('The price of one unit in this currency'),
  firstChargeAmount: Nullable(Money('The price of the first charge, when it differs from amount')),
  quantity: Type.Integer(),
  installments: Type.Integer(),
  createdAt: Timestamp,
});

/** What the hosted page shows for a line: names, price and what is due today versus later (workflows/lib/pricing.ts). */
const SummaryLineView = StrictObject({
  itemId: Type.String(),
  offerId: Type.String(),
  productName: Type.String(),
  offerName: Type.String(),
  quantity: Type.Integer(),
  currency: Type.String(),
  unitAmount: Money('The standard price of one unit'),
  dueToday: Money('Charged at checkout for this line (quantity included)'),
  firstCharge: StringEnum(
    ['standard', 'setup_price', 'trial_validation', 'trial_with_joining_fee', 'prepaid_first_cycle'] as const,
    { description: 'The first-charge rule that applies (Document 2)' },
  ),
  trialDays: Type.Integer(),
  installments: Type.Integer(),
  /** null for a one-time offer; firstBillingAt is estimated from now (a subscription starts when it is paid). */
  recurring: Nullable(
    StrictObject({
      amount: Money('Each later cycle, quantity included'),
      billingCycle: Type.String(),
      customBillingDays: Nullable(Type.Integer()),
      firstBillingAt: Timestamp,
    }),
  ),
});

/** pix: qr_code_text (the copy-paste code), qr_code_url, expires_at; boleto: barcode, boleto_url, expires_at. */
export const PaymentInstructionsView = Nullable(Type.Record(Type.String(), Type.Unknown()));

/** The outcome of a checkout payment in words for a buyer (no provider codes). */
export const CheckoutPaymentSchema = StrictObject({
  transactionId: Type.String(),
  orderId: Nullable(Type.String()),
  /** in_doubt: the provider may have taken it without answering; being checked (do not invite paying again). */
  outcome: StringEnum(['succeeded', 'pending', 'declined', 'failed', 'in_doubt', 'expired'] as const),
  /** soft_decline or hard_decline for a declined payment; null otherwise. */
  declineType: Nullable(StringEnum(['soft_decline', 'hard_decline'] as const)),
  message: Nullable(Type.String()),
  paymentMethod: Type.String(),
  amount: Money('The amount of the payment'),
  currency: Type.String(),
  paymentInstructions: PaymentInstructionsView,
  /** A pending pix's code as an image (an SVG data URL drawn by the API); null otherwise. */
  qrCodeImage: Nullable(Type.String()),
  checkoutStatus: Type.String(),
  /**
   * A pending card payment the issuer challenges (3-D Secure): send the buyer to url before expiresAt; they come back
   * to the confirm's returnUrl with ?transaction_id=…. null otherwise.
   */
  nextAction: Nullable(
    StrictObject({ type: StringEnum(['redirect_to_url'] as const), url: Type.String(), expiresAt: Timestamp }),
  ),
  /** Why a failed payment failed, when it was the buyer's authentication; null otherwise (declines say declineType). */
  failureCode: Nullable(StringEnum(['authentication_failed', 'authentication_abandoned'] as const)),
  /** The subscription a paid recurring offer started (trialing for a free trial); null otherwise. */
  subscription: Nullable(
    StrictObject({
      id: Type.String(),
      status: Type.String(),
      trialEnd: Nullable(Timestamp),
      nextBillingAt: Nullable(Timestamp),
    }),
  ),
});

export const BrowserCheckoutSchema = StrictObject({
  checkout: StrictObject({
    id: Type.String(),
    merchantId: Type.String(),
    /** setup: the page saves a card (card.enroll) instead of paying; no offer, no items, nothing due. */
    mode: StringEnum(['payment', 'setup'] as const),
    offerId: Nullable(Type.String()),
    customerId: Nullable(Type.String()),
    customerEmail: Nullable(Type.String()),
    customerName: Nullable(Type.String()),
    selectedCurrency: Nullable(Type.String()),
    status: Type.String(),
    externalSessionId: Nullable(Type.String()),
    expiresAt: Nullable(Timestamp),
    completedAt: Nullable(Timestamp),
    paymentInstrumentId: Nullable(Type.String()),
    /** Where the page sends the buyer once paid or saved: success_url with {CHECKOUT_SESSION_ID} replaced. */
    successUrl: Nullable(Type.String()),
    /** The page's back link: cancel_url. */
    cancelUrl: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    items: Type.Array(CheckoutItemView),
  }),
  /** Additive: what the hosted page displays (names, due today and later) and the checkout's latest payment. */
  summary: StrictObject({
    currency: Type.String(),
    dueToday: Money('Charged at checkout, all lines'),
    lines: Type.Array(SummaryLineView),
  }),
  payment: Nullable(CheckoutPaymentSchema),
  paymentMethods: StrictObject({
    cards: Type.Boolean(),
    pix: Type.Boolean(),
    boleto: Type.Boolean(),
    wallet: Type.Boolean(),
    cardBrands: Type.Array(Type.String()),
    installmentsSupported: Type.Boolean(),
    installmentOptions: InstallmentOptionsSchema,
  }),
  savedInstruments: Type.Array(
    StrictObject({
      id: Type.String(),
      instrumentType: Type.String(),
      brand: Nullable(Type.String()),
      last4: Nullable(Type.String()),
      expMonth: Nullable(Type.Integer()),
      expYear: Nullable(Type.Integer()),
    }),
  ),
});

export const EnrollBody = StrictObject({
  tokenId: Id('tok'),
  customerId: Type.Optional(Id('cust')),
  currency: Type.Optional(Currency),
  country: Type.Optional(Country),
  connectorId: Type.Optional(Id('conn')),
  /** Required in a session without a checkout: minted by the merchant's server (POST /merchants/:id/enrolment-tokens). */
  enrolmentToken: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

export const EnrollResultSchema = StrictObject({
  verified: Type.Boolean(),
  paymentInstrumentId: Nullable(Type.String()),
  status: Type.String(),
  brand: Type.String(),
  last4: Type.String(),
  expMonth: Type.Integer(),
  expYear: Type.Integer(),
  reason: Nullable(Type.String()),
});

/** The payment methods a buyer may pick on the hosted page (wallets need the wallet SDKs, not wired yet). */
export const CHECKOUT_PAYMENT_METHODS = ['credit_card', 'debit_card', 'pix', 'boleto'] as const;

/** Only the method: amount, currency, customer, items and installments come from the checkout session. */
export const ConfirmCheckoutBody = StrictObject({
  paymentMethod: Type.Optional(StringEnum(CHECKOUT_PAYMENT_METHODS, { default: 'credit_card' })),
  // One of the checkout's savedInstruments (a checkout created for a customer id): pay with that saved card.
  paymentInstrumentId: Type.Optional(Id('pi')),
  // Card payments: where a 3-D Secure challenge sends the buyer back (the hosted checkout, or the merchant's website).
  returnUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
});
