import { Type } from '@sinclair/typebox';
import { Currency, Country, Id, Metadata, Nullable, StrictObject, Timestamp } from '../../http/schema';

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
  amount: Type.Integer(),
  firstChargeAmount: Nullable(Type.Integer()),
  quantity: Type.Integer(),
  installments: Type.Integer(),
  createdAt: Timestamp,
});

export const BrowserCheckoutSchema = StrictObject({
  checkout: StrictObject({
    id: Type.String(),
    merchantId: Type.String(),
    offerId: Type.String(),
    customerId: Nullable(Type.String()),
    customerEmail: Nullable(Type.String()),
    customerName: Nullable(Type.String()),
    selectedCurrency: Nullable(Type.String()),
    status: Type.String(),
    externalSessionId: Nullable(Type.String()),
    expiresAt: Nullable(Timestamp),
    completedAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    items: Type.Array(CheckoutItemView),
  }),
  paymentMethods: StrictObject({
    cards: Type.Boolean(),
    pix: Type.Boolean(),
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
