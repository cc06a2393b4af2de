import { Type } from '@sinclair/typebox';
import { DOCUMENT_TYPES } from '../../../db/entities';
import {
  Country,
  E164Phone,
  Id,
  MerchantIdField,
  Metadata,
  Nullable,
  PaginationQuery,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';

export const CUSTOMER_METADATA_MAX_BYTES = 5 * 1024;

const Email = Type.String({ format: 'email', maxLength: 254 });
const Name = Type.String({ minLength: 1, maxLength: 255 });
const DocumentType = StringEnum(DOCUMENT_TYPES);
const DocumentNumber = Type.String({ minLength: 1, maxLength: 40 });

export const BillingAddressInput = StrictObject({
  line_1: Type.String({ minLength: 1, maxLength: 255 }),
  line_2: Type.Optional(Type.String({ maxLength: 255 })),
  zip_code: Type.String({ minLength: 1, maxLength: 20 }),
  city: Type.String({ minLength: 1, maxLength: 100 }),
  state: Type.String({ minLength: 1, maxLength: 100 }),
  country: Country,
});

export const CreateCustomerBody = StrictObject({
  email: Email,
  name: Name,
  phone: E164Phone,
  document_type: DocumentType,
  document_number: DocumentNumber,
  billing_address: BillingAddressInput,
  metadata: Type.Optional(Nullable(Metadata(CUSTOMER_METADATA_MAX_BYTES))),
  test_clock_id: Type.Optional(
    Nullable({
      ...Id('clk'),
      description:
        "A test clock of the merchant: the customer's subscriptions run on it. Set at creation only: with the e-mail of an existing customer that is not on this clock, 400",
    }),
  ),
});

export const UpdateCustomerBody = StrictObject({
  email: Type.Optional(Email),
  name: Type.Optional(Name),
  phone: Type.Optional(E164Phone),
  document_type: Type.Optional(DocumentType),
  document_number: Type.Optional(DocumentNumber),
  billing_address: Type.Optional(BillingAddressInput),
  metadata: Type.Optional(Nullable(Metadata(CUSTOMER_METADATA_MAX_BYTES))),
});

export const CustomerParams = StrictObject({ customerId: Id('cust') });

export const ListCustomersQuery = StrictObject({
  ...PaginationQuery,
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'Exact match, case-insensitive' })),
});

export const DeleteCustomerQuery = StrictObject({ merchant_id: MerchantIdField });

export const CustomerSchema = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  email: Nullable(Type.String()),
  name: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  document_type: Nullable(DocumentType),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  test_clock_id: Type.Optional(
    Type.String({ description: 'The test clock its subscriptions run on; absent for a customer on real time' }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** The confirmation payload of POST /customers. */
export const CustomerReceiptSchema = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  email: Nullable(Type.String()),
  name: Nullable(Type.String()),
  test_clock_id: Type.Optional(Type.String({ description: 'Only for a customer on a test clock' })),
  created_at: Timestamp,
});
