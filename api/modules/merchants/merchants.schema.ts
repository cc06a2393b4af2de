/**
 * Request and response schemas of Document 3's Merchants section. Shape and length limits live here;
 * rules that need code (name has a letter or digit, phone normalisation, website host) are in
 * merchant-fields.ts so their messages are readable.
 */
import { Type } from '@sinclair/typebox';
import { MEMBER_ROLES } from '../../../db/entities';
import {
  Country,
  Id,
  MultiEnum,
  Nullable,
  PaginationQuery,
  SingleLineName,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';

export const MERCHANT_STATUSES = ['active', 'inactive', 'suspended'] as const;
const Status = StringEnum(MERCHANT_STATUSES);

const Name = SingleLineName({ description: 'One line of plain text with at least one letter or digit' });
/** Same rule as family and offer slugs: already lowercase and URL-safe, never folded. */
const Slug = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
  description: 'Lowercase letters, digits and single dashes',
});
const ExternalReference = Type.String({ minLength: 1, maxLength: 255 });
const BusinessRegistrationNumber = Type.String({ minLength: 1, maxLength: 64, description: 'Tax id' });
const Mcc = Type.String({ pattern: '^[0-9]{4}$', description: 'Merchant category code: exactly four digits' });
const Website = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https URL' });
const Phone = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'Any human format with the country code (leading + or 00), e.g. "+55 (11) 98765-4321"; stored as E.164',
});

/** The customer billing address limits (Document 2), with line_2 optionally null. */
export const MerchantAddressInput = StrictObject({
  line_1: Type.String({ minLength: 1, maxLength: 255 }),
  line_2: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  zip_code: Type.String({ minLength: 1, maxLength: 20 }),
  city: Type.String({ minLength: 1, maxLength: 100 }),
  state: Type.String({ minLength: 1, maxLength: 100 }),
  country: Country,
});

/** The optional business profile, the same on create and update. */
const profileFields = {
  external_reference: Type.Optional(Nullable(ExternalReference)),
  business_registration_number: Type.Optional(BusinessRegistrationNumber),
  mcc: Type.Optional(Mcc),
  website: Type.Optional(Nullable(Website)),
  phone_number: Type.Optional(Phone),
  address: Type.Optional(MerchantAddressInput),
};

export const CreateMerchantBody = StrictObject({
  name: Name,
  primary_email: Type.String({
    format: 'email',
    maxLength: 254,
    description: 'Becomes the first owner (pending until the invitation is accepted)',
  }),
  primary_name: Type.Optional(SingleLineName()),
  ...profileFields,
  slug: Type.Optional(Slug),
});

/** Fields not sent are unchanged; only the "string or null" fields of the spec may be cleared. */
export const UpdateMerchantBody = StrictObject({
  name: Type.Optional(Name),
  status: Type.Optional(Status),
  ...profileFields,
});

export const MerchantParams = StrictObject({ id: Id('mrc') });
export const MemberListParams = StrictObject({ merchant_id: Id('mrc') });

export const ListMerchantsQuery = StrictObject({
  ...PaginationQuery,
  status: Type.Optional(MultiEnum(MERCHANT_STATUSES)),
});
export const PageQuery = StrictObject({ ...PaginationQuery });

const AddressSchema = StrictObject({
  line_1: Type.String(),
  line_2: Nullable(Type.String()),
  zip_code: Type.String(),
  city: Type.String(),
  state: Type.String(),
  country: Type.String(),
});

export const MerchantSchema = StrictObject({
  id: Type.String(),
  organization_id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  external_reference: Nullable(Type.String()),
  business_registration_number: Nullable(Type.String()),
  mcc: Nullable(Type.String()),
  phone_number: Nullable(Type.String()),
  address: Nullable(AddressSchema),
  website: Nullable(Type.String()),
  status: Status,
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** The compact confirmation of POST /merchants. */
export const MerchantReceiptSchema = StrictObject({
  id: Type.String(),
  organization_id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  external_reference: Nullable(Type.String()),
  status: Status,
  created_at: Timestamp,
});

export const ActivitySchema = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  action: Type.String({ description: 'resource.verb, e.g. merchant.updated' }),
  actor: StrictObject({
    type: StringEnum(['api_key', 'dashboard_user', 'system'] as const),
    id: Nullable(Type.String({ description: 'ak_… for an API key, usr_… for a Dashboard user, null for the system' })),
  }),
  changes: Nullable(
    Type.Record(Type.String(), Type.Unknown(), { description: 'field → {from, to}, or a summary of the action' }),
  ),
  created_at: Timestamp,
});

export const MemberSchema = StrictObject({
  membership_id: Type.String(),
  user_id: Type.String(),
  email: Type.String(),
  name: Nullable(Type.String()),
  role: StringEnum(MEMBER_ROLES),
  joined_at: Nullable(Timestamp),
  status: StringEnum(['pending', 'active'] as const),
  invitation_expires_at: Nullable(Timestamp),
});
