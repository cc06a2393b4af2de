import { Type } from '@sinclair/typebox';
import {
  RENEWAL_FAILURE_CARDS,
  type RenewalFailureCode,
} from '../../../domain/payment-instruments/payment-instruments.sandbox-cards';
import { Id, MerchantIdField, Nullable, PaginationQuery, StrictObject, StringEnum, Timestamp } from '../../http/schema';

const FrozenTime = Type.String({
  format: 'date-time',
  description: "The clock's time (ISO 8601); the subscriptions of its customers run on it",
});

export const TestClockParams = StrictObject({ test_clock_id: Id('clk') });
/** An organization key names the merchant (merchant_id), as elsewhere. */
export const MerchantQuery = StrictObject({ merchant_id: MerchantIdField });
export const ListTestClocksQuery = StrictObject({ ...PaginationQuery, merchant_id: MerchantIdField });

export const CreateTestClockBody = StrictObject({
  merchant_id: MerchantIdField,
  frozen_time: FrozenTime,
  name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
});

export const AdvanceTestClockBody = StrictObject({
  merchant_id: MerchantIdField,
  frozen_time: Type.String({
    format: 'date-time',
    description:
      'Where to move the clock: strictly later than its current frozen_time, at most 12 months past it and 24 months past the time the clock was created at (defaults), with at most 1000 renewals due on the way (422 otherwise)',
  }),
});

export const TestClockSchema = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  name: Nullable(Type.String()),
  frozen_time: Timestamp,
  status: StringEnum(['ready', 'advancing'] as const, {
    description: 'advancing until every subscription of the clock has done all the work due up to frozen_time',
  }),
  created_at: Timestamp,
});

export const ClockSubscriptionParams = StrictObject({ test_clock_id: Id('clk'), subscription_id: Id('sub') });

const FailureCode = StringEnum(Object.keys(RENEWAL_FAILURE_CARDS) as RenewalFailureCode[], {
  description: 'The failure_code the next renewal declines with (the sandbox declines the charge so)',
});

export const FailNextRenewalBody = StrictObject({
  merchant_id: MerchantIdField,
  failure_code: Type.Optional({ ...FailureCode, default: 'insufficient_funds' }),
});

export const RenewalFailureSchema = StrictObject({
  subscription_id: Type.String(),
  test_clock_id: Type.String(),
  failure_code: FailureCode,
});
