/** Request and response schemas of Document 3's transactions, attempts and refunds. */
import { Type } from '@sinclair/typebox';
import { PAYMENT_METHODS, TRANSACTION_STATUSES } from '../../../db/entities';
import { THREE_DS_STATUSES } from '../../../workflows/lib/three-ds';
import {
  Country,
  Currency,
  DateRangeQuery,
  Id,
  Livemode,
  LivemodeQuery,
  MerchantIdField,
  Metadata,
  Money,
  MultiEnum,
  Nullable,
  PaginationQuery,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';

/** Allowed wallet_type values (the spec leaves them open; see docs/api-decisions.md). */
export const WALLET_TYPES = ['apple_pay', 'google_pay', 'samsung_pay', 'paypal', 'mercado_pago', 'link'] as const;
export const MAX_INSTALLMENTS = 24;

export const InstallmentsInput = StrictObject(
  {
    count: Type.Integer({
      minimum: 1,
      maximum: MAX_INSTALLMENTS,
      description: 'Number of installments; 1 is a single charge',
    }),
  },
  { description: 'Routed only to connectors whose routing rules accept the count (routing condition "installments")' },
);

export const CreateTransactionBody = StrictObject({
  payment_method: StringEnum(PAYMENT_METHODS),
  charge_type: StringEnum(['payment', 'setup_verification'] as const),
  country: Country,
  amount: Type.Optional(
    Money('What to charge; required unless checkout_session_id gives it', { minimum: 0, maximum: 99_999_999_999 }),
  ),
  currency: Type.Optional(Currency),
  merchant_id: MerchantIdField,
  card_ciphertext_id: Type.Optional(Id('tok')),
  payment_instrument_id: Type.Optional(Id('pi')),
  checkout_session_id: Type.Optional(Id('cks')),
  wallet_type: Type.Optional(StringEnum(WALLET_TYPES)),
  customer_id: Type.Optional(Id('cust')),
  external_order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  capture: Type.Optional(Type.Boolean({ default: true })),
  risk_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  installments: Type.Optional(InstallmentsInput),
  metadata: Type.Optional(Metadata()),
  return_url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        "Card charges: where the buyer's browser lands after a 3-D Secure challenge, with ?transaction_id=tx_… (https; http on localhost outside production)",
    }),
  ),
});

export const TransactionParams = StrictObject({ transactionId: Id('tx') });
export const RefundParams = StrictObject({ transactionId: Id('tx'), refundId: Id('ref') });
export const MerchantQuery = StrictObject({ merchant_id: MerchantIdField });

export const ListTransactionsQuery = StrictObject({
  ...PaginationQuery,
  ...DateRangeQuery,
  merchant_id: MerchantIdField,
  status: Type.Optional(MultiEnum(TRANSACTION_STATUSES)),
  customer_reference: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: "The customer's id (cust_) or the caller's external_order_id",
    }),
  ),
  customer_id: Type.Optional({ ...Id('cust'), description: "Only this customer's transactions" }),
  order_id: Type.Optional(Id('ord')),
  payment_method: Type.Optional(MultiEnum(PAYMENT_METHODS)),
  currency: Type.Optional(Currency),
  ...LivemodeQuery,
});

const TimelineEntryFields = {
  attempt_number: Type.Integer(),
  is_fallback: Type.Boolean(),
  connector_id: Type.String(),
  provider_slug: Type.String(),
  status: StringEnum(['pending', 'success', 'failed', 'error'] as const),
  started_at: Timestamp,
  finished_at: Nullable(Timestamp),
  error_category: Nullable(Type.String()),
  error_code: Nullable(
    Type.String({
      description:
        "Why the attempt failed, in the provider-independent failure_code vocabulary (insufficient_funds, do_not_honor, expired_card, …; docs/api-decisions.md, 'One decline vocabulary')",
    }),
  ),
  provider_code: Nullable(
    Type.String({ description: "The provider's own code for this attempt's failure; null when no provider gave one" }),
  ),
  three_ds: Nullable(
    StrictObject(
      {
        requested: Type.Boolean({ description: 'We asked the provider to authenticate the card' }),
        status: StringEnum(THREE_DS_STATUSES),
        version: Nullable(Type.String()),
        eci: Nullable(Type.String({ description: 'Electronic Commerce Indicator' })),
        liability_shift: Type.Boolean({ description: 'Fraud chargebacks move to the issuer' }),
      },
      { description: 'How the card was authenticated (3-D Secure); null for other methods and older attempts' },
    ),
  ),
};

export const TimelineEntrySchema = StrictObject(TimelineEntryFields);

export const AttemptSchema = StrictObject({
  ...TimelineEntryFields,
  routing_node_id: Nullable(Type.String()),
  outcome: Nullable(Type.String()),
  provider_reference: Nullable(Type.String()),
  error_message: Nullable(Type.String()),
  three_ds_status: Nullable(Type.String()),
  gateway_fee: Nullable(Money("The provider's fee for this attempt, when it reports one")),
});

const TransactionHeaderFields = {
  id: Type.String(),
  organization_id: Type.String(),
  merchant_id: Type.String(),
  order_id: Nullable(Type.String()),
  subscription_id: Nullable(Type.String()),
  external_order_id: Nullable(Type.String()),
  customer_id: Nullable(Type.String()),
  payment_instrument_id: Nullable(Type.String()),
  amount: Money(
    'The amount asked for; amount_authorized is what the provider approved (0 on a failed payment). 4990 = R$49.90',
  ),
  amount_authorized: Money('What the provider approved (0 on a failed or pending payment)'),
  amount_captured: Money('What was captured so far (equals amount_authorized once an auto-capture charge succeeds)'),
  amount_refunded: Money('What was refunded so far, across all succeeded refunds'),
  currency: Type.String(),
  payment_method: StringEnum(PAYMENT_METHODS),
  wallet_type: Nullable(Type.String()),
  charge_type: Type.String(),
  livemode: Livemode,
  country: Type.String(),
  status: StringEnum(TRANSACTION_STATUSES),
  capture: Type.Boolean(),
  risk_score: Nullable(Type.Integer()),
  installments: Nullable(Type.Integer()),
  applied_routing_rule_id: Nullable(Type.String()),
  payment_instructions: Nullable(Type.Record(Type.String(), Type.Unknown())),
  failure_code: Nullable(
    Type.String({
      description:
        "Why the transaction failed, expired or was canceled: one provider-independent vocabulary (insufficient_funds, do_not_honor, expired_card, incorrect_cvc, lost_or_stolen, fraudulent, authentication_required, invalid_number, processing_error, …, and Switchyard's own reasons such as no_route; docs/api-decisions.md, 'One decline vocabulary')",
    }),
  ),
  failure_message: Nullable(Type.String()),
  provider_code: Nullable(
    Type.String({
      description:
        "The deciding provider's own code behind failure_code (e.g. Adyen's 12, Mercado Pago's cc_rejected_insufficient_amount); null when no provider decided",
    }),
  ),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const NextActionSchema = Nullable(
  StrictObject(
    {
      type: StringEnum(['redirect_to_url'] as const),
      url: Type.String({ description: "The issuer's challenge page: send the buyer's browser there" }),
      expires_at: Timestamp,
    },
    { description: 'While pending for a 3-D Secure challenge: what the buyer must do, and by when; null otherwise' },
  ),
);

export const TransactionSchemaOut = StrictObject({
  ...TransactionHeaderFields,
  next_action: NextActionSchema,
  timeline: Type.Array(TimelineEntrySchema),
});

export const CaptureBody = StrictObject({
  merchant_id: MerchantIdField,
  amount: Type.Optional(Money('What to capture; defaults to the whole authorized amount', { minimum: 1 })),
});
export const VoidBody = StrictObject({ merchant_id: MerchantIdField });
export const CreateRefundBody = StrictObject({
  merchant_id: MerchantIdField,
  amount: Type.Optional(Money('What to refund; defaults to the whole refundable balance', { minimum: 1 })),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  metadata: Type.Optional(Metadata()),
});

export const RefundSchemaOut = StrictObject({
  id: Type.String(),
  transaction_id: Type.String(),
  merchant_id: Type.String(),
  amount: Money('The amount refunded (or asked for, while pending or when failed)'),
  currency: Type.String(),
  status: StringEnum(['pending', 'succeeded', 'failed'] as const),
  reason: Nullable(Type.String()),
  error_code: Nullable(Type.String()),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Timestamp,
  updated_at: Timestamp,
});
