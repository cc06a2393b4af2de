/** Request and response schemas of Document 2's checkout sessions, their line items and tracking events. */
import { Type } from '@sinclair/typebox';
import { CHECKOUT_MODES, CHECKOUT_STATUSES } from '../../../db/entities';
import {
  Currency,
  Id,
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
import { CreateCustomerBody } from '../customers/customers.schema';

/** Items per session: enough for any cart with order bumps, small enough to price in one request. */
export const MAX_ITEMS_PER_SESSION = 50;
/** Events embedded in GET /checkout-sessions/:id?include_events=true (the full history is paginated at /events). */
export const MAX_EMBEDDED_EVENTS = 100;

/** Event types a caller may record; customer_identified and abandoned are recorded by the service itself. */
export const CLIENT_EVENT_TYPES = [
  'page_view',
  'checkout_started',
  'customer_info_entered',
  'payment_method_selected',
  'payment_started',
  'payment_failed',
  'custom',
] as const;
export const SERVICE_EVENT_TYPES = ['customer_identified', 'abandoned'] as const;
export const EVENT_TYPES = [...CLIENT_EVENT_TYPES, ...SERVICE_EVENT_TYPES] as const;

const Email = Type.String({ format: 'email', maxLength: 254 });
const Name = Type.String({ minLength: 1, maxLength: 255 });
const ExternalSessionId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: "Caller's reference, unique per merchant",
});
const FutureTimestamp = Type.String({ format: 'date-time', description: 'ISO 8601; must be in the future' });
/** success_url and cancel_url: https (http on loopback outside production), checked by the service. */
const RedirectUrl = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });
const Quantity = Type.Integer({ minimum: 1, maximum: 10_000, default: 1 });
const Installments = Type.Integer({ minimum: 1, maximum: 120, default: 1 });

/** The inline customer is POST /customers' body: resolved by email, so an existing customer is reused as-is. */
export const InlineCustomer = CreateCustomerBody;

export const ItemInput = StrictObject({
  offer_id: Id('ofr'),
  quantity: Type.Optional(Quantity),
  installments: Type.Optional(Installments),
});

export const CreateCheckoutSessionBody = StrictObject({
  mode: Type.Optional(
    StringEnum(CHECKOUT_MODES, {
      description:
        'payment (default) sells offer_id; setup saves a card for the customer with a zero-amount check (no offer_id or items; selected_currency required)',
    }),
  ),
  /** Required in payment mode, not allowed in setup mode: the service names it in a 400 either way. */
  offer_id: Type.Optional(Id('ofr')),
  customer_id: Type.Optional(Id('cust')),
  customer: Type.Optional(InlineCustomer),
  selected_currency: Type.Optional(Currency),
  external_session_id: Type.Optional(ExternalSessionId),
  expires_at: Type.Optional(FutureTimestamp),
  items: Type.Optional(Type.Array(ItemInput, { minItems: 1, maxItems: MAX_ITEMS_PER_SESSION })),
  success_url: Type.Optional(
    RedirectUrl(
      'Where the hosted page sends the buyer once the checkout is paid or its card saved; {CHECKOUT_SESSION_ID} in it is replaced by the session id',
    ),
  ),
  cancel_url: Type.Optional(RedirectUrl("Where the hosted page's back link takes the buyer")),
  merchant_id: MerchantIdField,
});

export const UpdateCheckoutSessionBody = StrictObject({
  customer_id: Type.Optional(Id('cust')),
  customer: Type.Optional(InlineCustomer),
  selected_currency: Type.Optional(Currency),
  external_session_id: Type.Optional(Nullable(ExternalSessionId)),
  expires_at: Type.Optional(FutureTimestamp),
  // Accepted by the schema only so the service can answer "immutable" instead of "is not allowed".
  offer_id: Type.Optional(Type.Unknown({ description: 'Immutable after creation: sending it is a 400' })),
  items: Type.Optional(Type.Unknown({ description: 'Immutable here (use the item endpoints): sending it is a 400' })),
});

export const IdentifyBody = StrictObject({
  customer_id: Type.Optional(Id('cust')),
  customer_email: Type.Optional(Email),
  customer_name: Type.Optional(Name),
  merchant_id: MerchantIdField,
});

export const SessionParams = StrictObject({ id: Id('cks') });
export const ItemParams = StrictObject({ id: Id('cks'), itemId: Id('cki') });

export const ListCheckoutSessionsQuery = StrictObject({
  ...PaginationQuery,
  status: Type.Optional(MultiEnum(CHECKOUT_STATUSES)),
  offer_id: Type.Optional(Id('ofr')),
  customer_id: Type.Optional(Id('cust')),
  customer_email: Type.Optional(
    Type.String({ minLength: 1, maxLength: 254, description: 'Exact match, case-insensitive' }),
  ),
  external_session_id: Type.Optional(ExternalSessionId),
  merchant_id: MerchantIdField,
});

export const GetCheckoutSessionQuery = StrictObject({
  include_items: Type.Boolean({ default: true }),
  include_events: Type.Boolean({ default: false }),
  merchant_id: MerchantIdField,
});

/** merchant_id for organization keys on calls that are not creates (PATCH, actions, DELETE). */
export const MerchantOnlyQuery = StrictObject({ merchant_id: MerchantIdField });

export const AddItemBody = StrictObject({
  offer_id: Id('ofr'),
  quantity: Type.Optional(Quantity),
  installments: Type.Optional(Installments),
  merchant_id: MerchantIdField,
});

export const UpdateItemBody = StrictObject({
  quantity: Type.Optional(Quantity),
  installments: Type.Optional(Installments),
});

export const RecordEventBody = StrictObject({
  event_type: StringEnum(CLIENT_EVENT_TYPES),
  source_url: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2048 }))),
  utm_source: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  utm_medium: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  utm_campaign: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  ip_address: Type.Optional(
    Type.String({ minLength: 2, maxLength: 45, description: "The buyer's IPv4 or IPv6 address" }),
  ),
  user_agent: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1024, description: "The buyer's browser User-Agent" }),
  ),
  metadata: Type.Optional(Nullable(Metadata())),
  merchant_id: MerchantIdField,
});

export const ListEventsQuery = StrictObject({
  ...PaginationQuery,
  event_type: Type.Optional(MultiEnum(EVENT_TYPES)),
  merchant_id: MerchantIdField,
});

// ---- responses ----------------------------------------------------------------------------------

export const CheckoutItemSchema = StrictObject({
  id: Type.String(),
  checkout_session_id: Type.String(),
  offer_id: Type.String(),
  currency: Type.String(),
  amount: Money('The price of one unit, snapshot from the offer price when the item was added'),
  first_charge_amount: Nullable(Money('The first charge, when it differs from amount')),
  quantity: Type.Integer(),
  installments: Type.Integer(),
  created_at: Timestamp,
});

export const CheckoutEventSchema = StrictObject({
  id: Type.String(),
  checkout_session_id: Type.String(),
  event_type: Type.String(),
  source_url: Nullable(Type.String()),
  utm_source: Nullable(Type.String()),
  utm_medium: Nullable(Type.String()),
  utm_campaign: Nullable(Type.String()),
  ip_address: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Timestamp,
});

export const CheckoutSessionSchema = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  mode: StringEnum(CHECKOUT_MODES),
  /** null in setup mode. */
  offer_id: Nullable(Type.String()),
  customer_id: Nullable(Type.String()),
  customer_email: Nullable(Type.String()),
  customer_name: Nullable(Type.String()),
  selected_currency: Nullable(Type.String()),
  status: StringEnum(CHECKOUT_STATUSES),
  external_session_id: Nullable(Type.String()),
  expires_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
  /** Setup mode, once completed: the payment instrument the buyer's card was saved as; null otherwise. */
  payment_instrument_id: Nullable(Type.String()),
  /** As sent on create ({CHECKOUT_SESSION_ID} not replaced); null when not sent. */
  success_url: Nullable(Type.String()),
  cancel_url: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  items: Type.Optional(Type.Array(CheckoutItemSchema)),
  events: Type.Optional(Type.Array(CheckoutEventSchema)),
});
