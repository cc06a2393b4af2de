import { Type } from '@sinclair/typebox';
import { BILLING_CYCLES, OFFER_STATUSES } from '../../../db/entities';
import {
  Id,
  MerchantIdField,
  MultiEnum,
  Nullable,
  PaginationQuery,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';
import { OfferPriceObject, PriceInputFields } from '../offer-prices/offer-prices.schema';

/** Same slug rule as product families: lowercase letters, digits and single dashes (uppercase is rejected). */
const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Slug = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: SLUG_PATTERN,
  description: 'Lowercase letters, digits and dashes; unique per product among live offers',
});
const Description = Type.String({ maxLength: 2000 });
const BillingCycle = StringEnum(BILLING_CYCLES);
const Status = StringEnum(OFFER_STATUSES);
/** Upper bounds keep the calendar arithmetic sane; ten years of days is far beyond any real plan. */
const CustomBillingDays = Type.Integer({
  minimum: 1,
  maximum: 3650,
  description: 'Period in days; required when billing_cycle is custom',
});
const CycleLimit = Type.Integer({
  minimum: 1,
  maximum: 10000,
  description: 'Maximum number of charges; null = until cancelled',
});
const TrialDays = Type.Integer({ minimum: 1, maximum: 3650, description: 'Required when free_trial is true' });
export const MAX_PRICES_PER_OFFER = 100;

/** A prices entry of POST /offers: the fields of POST /offers/:offerId/prices. */
const OfferPriceEntry = StrictObject(PriceInputFields);

export const CreateOfferBody = StrictObject({
  product_id: Id('prd'),
  name: Name,
  slug: Slug,
  billing_cycle: BillingCycle,
  status: Status,
  prices: Type.Array(OfferPriceEntry, { minItems: 1, maxItems: MAX_PRICES_PER_OFFER }),
  description: Type.Optional(Nullable(Description)),
  custom_billing_days: Type.Optional(Nullable(CustomBillingDays)),
  cycle_limit: Type.Optional(Nullable(CycleLimit)),
  free_trial: Type.Optional(Type.Boolean({ default: false })),
  trial_days: Type.Optional(Nullable(TrialDays)),
  setup_charge: Type.Optional(Type.Boolean({ default: false })),
  renew_after_cycle_limit: Type.Optional(Type.Boolean({ default: false })),
  renewal_offer_id: Type.Optional(Nullable(Id('ofr'))),
  is_default: Type.Optional(Type.Boolean({ default: false })),
  merchant_id: MerchantIdField,
});

/** Offer-level fields only: product_id is fixed at creation and prices have their own endpoints. */
export const UpdateOfferBody = StrictObject({
  name: Type.Optional(Name),
  slug: Type.Optional(Slug),
  description: Type.Optional(Nullable(Description)),
  billing_cycle: Type.Optional(BillingCycle),
  custom_billing_days: Type.Optional(Nullable(CustomBillingDays)),
  cycle_limit: Type.Optional(Nullable(CycleLimit)),
  free_trial: Type.Optional(Type.Boolean()),
  trial_days: Type.Optional(Nullable(TrialDays)),
  setup_charge: Type.Optional(Type.Boolean()),
  renew_after_cycle_limit: Type.Optional(Type.Boolean()),
  renewal_offer_id: Type.Optional(Nullable(Id('ofr'))),
  is_default: Type.Optional(Type.Boolean()),
  status: Type.Optional(Status),
});

export const OfferParams = StrictObject({ id: Id('ofr') });

/** merchant_id for organization keys on calls without a create body (get, patch, delete, restore). */
export const MerchantQuery = StrictObject({ merchant_id: MerchantIdField });

export const ListOffersQuery = StrictObject({
  ...PaginationQuery,
  product_id: Type.Optional(Id('prd')),
  status: Type.Optional(MultiEnum(OFFER_STATUSES)),
  billing_cycle: Type.Optional(MultiEnum(BILLING_CYCLES)),
  is_default: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Partial match, case-insensitive' })),
  merchant_id: MerchantIdField,
});

const offerFields = {
  id: Type.String(),
  product_id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  description: Nullable(Type.String()),
  billing_cycle: BillingCycle,
  custom_billing_days: Nullable(Type.Integer()),
  cycle_limit: Nullable(Type.Integer()),
  free_trial: Type.Boolean(),
  trial_days: Nullable(Type.Integer()),
  setup_charge: Type.Boolean(),
  renew_after_cycle_limit: Type.Boolean(),
  renewal_offer_id: Nullable(Type.String()),
  is_default: Type.Boolean(),
  status: Status,
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** List items: the offer without its prices. */
export const OfferSummaryObject = StrictObject(offerFields);
/** Create, get-by-id, patch and restore: the offer with its live prices, default first then by currency. */
export const OfferObject = StrictObject({ ...offerFields, prices: Type.Array(OfferPriceObject) });
