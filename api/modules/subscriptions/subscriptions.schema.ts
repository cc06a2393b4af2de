import { Type } from '@sinclair/typebox';
import { BILLING_CYCLES, SUBSCRIPTION_STATUSES, TRANSITION_TYPES } from '../../../db/entities';
import {
  Id,
  Livemode,
  LivemodeQuery,
  Money,
  MultiEnum,
  Nullable,
  PaginationQuery,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';

export const MerchantParams = StrictObject({ merchant_id: Id('mrc') });
export const SubscriptionParams = StrictObject({ merchant_id: Id('mrc'), subscription_id: Id('sub') });

export const ListSubscriptionsQuery = StrictObject({
  ...PaginationQuery,
  customer_id: Type.Optional(Id('cust')),
  status: Type.Optional(MultiEnum(SUBSCRIPTION_STATUSES)),
  current_offer_id: Type.Optional(Id('ofr')),
  product_family_id: Type.Optional(Id('pfa')),
  ...LivemodeQuery,
});

/** The transitions list takes page and limit only. */
export const ListTransitionsQuery = StrictObject({ ...PaginationQuery });

const Reason = Type.String({ minLength: 1, maxLength: 500 });

export const CancelBody = StrictObject({
  at_period_end: Type.Boolean({ description: 'true defers to the end of the current period; false cancels now' }),
  reason: Type.Optional(Reason),
});
export const PauseBody = StrictObject({ reason: Type.Optional(Reason) });
export const EmptyBody = StrictObject({});
export const ChangeOfferBody = StrictObject({ to_offer_id: Id('ofr') });
export const ChangeInstrumentBody = StrictObject({ payment_instrument_id: Id('pi') });

export const SubscriptionSchemaOut = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  customer_id: Type.String(),
  customer_name: Nullable(Type.String()),
  customer_email: Nullable(Type.String()),
  current_offer_id: Type.String(),
  offer_name: Type.String(),
  product_id: Type.String(),
  product_name: Type.String(),
  product_family_id: Nullable(Type.String()),
  billing_cycle: StringEnum(BILLING_CYCLES),
  currency: Type.String(),
  livemode: Livemode,
  current_amount: Money('What each renewal charges (the current offer price in the subscription currency)'),
  current_period_start: Timestamp,
  current_period_end: Timestamp,
  next_billing_at: Nullable(Timestamp),
  billing_anchor_day: Nullable(Type.Integer()),
  trial_start: Nullable(Timestamp),
  trial_end: Nullable(Timestamp),
  dunning_started_at: Nullable(Timestamp),
  dunning_attempt_count: Type.Integer(),
  dunning_next_retry_at: Nullable(Timestamp),
  cycles_completed: Type.Integer(),
  cycle_limit: Nullable(Type.Integer()),
  status: StringEnum(SUBSCRIPTION_STATUSES),
  cancel_at_period_end: Type.Boolean(),
  cancelled_at: Nullable(Timestamp),
  cancellation_reason: Nullable(Type.String()),
  payment_instrument_id: Type.String(),
  preferred_connector_name: Type.String(),
  preferred_installments: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const TransitionSchemaOut = StrictObject({
  id: Type.String(),
  subscription_id: Type.String(),
  transition_type: StringEnum(TRANSITION_TYPES),
  from_offer_id: Nullable(Type.String()),
  to_offer_id: Nullable(Type.String()),
  from_status: Nullable(StringEnum(SUBSCRIPTION_STATUSES)),
  to_status: StringEnum(SUBSCRIPTION_STATUSES),
  triggered_by: StringEnum(['customer', 'system', 'admin'] as const),
  actor: Nullable(
    StrictObject({
      id: Type.String(),
      type: Type.String(),
      name: Nullable(Type.String()),
      email: Nullable(Type.String()),
    }),
  ),
  order_id: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Timestamp,
});

// ── Merchant Dashboard (Document 3 "Subscriptions (Dashboard)") ─────────────────────────────────────────────

export const DashboardSubscriptionParams = StrictObject({ id: Id('sub') });

/** The Dashboard object: the public one plus the preferred connector's id and the network transaction id. */
export const DashboardSubscriptionSchemaOut = StrictObject({
  ...SubscriptionSchemaOut.properties,
  preferred_connector_id: Nullable(Type.String()),
  initial_network_transaction_id: Nullable(Type.String()),
});
