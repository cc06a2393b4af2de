import { Type } from '@sinclair/typebox';
import { CARD_TYPES, INSTRUMENT_STATUSES } from '../../../db/entities';
import {
  TEST_PAYMENT_METHODS,
  type TestPaymentMethod,
} from '../../../domain/payment-instruments/payment-instruments.sandbox-cards';
import {
  Country,
  Id,
  Metadata,
  MultiEnum,
  Nullable,
  PaginationQuery,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';

export const INSTRUMENT_METADATA_MAX_BYTES = 5 * 1024;

export const MerchantParams = StrictObject({ merchant_id: Id('mrc') });
export const InstrumentParams = StrictObject({ merchant_id: Id('mrc'), payment_instrument_id: Id('pi') });

export const CreateInstrumentBody = StrictObject({
  customer_id: Id('cust'),
  card_ciphertext_id: Type.Optional({
    ...Id('tok'),
    description: 'An instrument_enrollment card token; exactly one of card_ciphertext_id and payment_method',
  }),
  payment_method: Type.Optional(
    StringEnum(Object.keys(TEST_PAYMENT_METHODS) as TestPaymentMethod[], {
      description:
        'Test mode only (400 TEST_PAYMENT_METHOD_LIVE_MODE when the merchant has a live connector): saves the sandbox test card the name stands for, as Stripe test payment methods do',
    }),
  ),
  metadata: Type.Optional(Metadata(INSTRUMENT_METADATA_MAX_BYTES)),
});

export const ListInstrumentsQuery = StrictObject({
  ...PaginationQuery,
  customer_id: Type.Optional(Id('cust')),
  status: Type.Optional(MultiEnum(INSTRUMENT_STATUSES)),
  card_brand: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Exact match, case-insensitive' })),
  card_type: Type.Optional(StringEnum(CARD_TYPES)),
  last4: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
  bin: Type.Optional(
    Type.String({ pattern: '^[0-9]{6}([0-9]{2})?$', description: '6 digits match every 8-digit BIN they begin' }),
  ),
  issuer_country: Type.Optional(Country),
});

export const UpdateInstrumentBody = StrictObject({ status: StringEnum(INSTRUMENT_STATUSES) });

const instrumentFields = {
  id: Type.String(),
  merchant_id: Type.String(),
  customer_id: Type.String(),
  instrument_type: Type.Literal('card'),
  card_brand: Nullable(Type.String()),
  card_type: Nullable(StringEnum(CARD_TYPES)),
  last4: Nullable(Type.String()),
  bin: Nullable(Type.String()),
  issuer_country: Nullable(Type.String()),
  exp_month: Nullable(Type.Integer()),
  exp_year: Nullable(Type.Integer()),
  status: StringEnum(INSTRUMENT_STATUSES),
  created_at: Timestamp,
};

export const InstrumentSchema = StrictObject(instrumentFields);
export const CreatedInstrumentSchema = StrictObject({ ...instrumentFields, deduplicated: Type.Boolean() });
