import { Type } from '@sinclair/typebox';
import {
  Currency,
  Id,
  MerchantIdField,
  Money,
  Nullable,
  PaginationQuery,
  StrictObject,
  Timestamp,
} from '../../http/schema';

/** Capped at 2^53 - 1 so every amount is exact in JSON and JavaScript. */
const MinorUnits = Money('The price per cycle (or of the one-time offer)', {
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
});
const FirstChargeUnits = Money('The first charge, when it differs from amount (null: amount)', {
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
});

/** The fields of one price, shared by POST /offers/:offerId/prices and the prices array of POST /offers. */
export const PriceInputFields = {
  currency: Currency,
  amount: MinorUnits,
  first_charge_amount: Type.Optional(Nullable(FirstChargeUnits)),
  is_default: Type.Optional(Type.Boolean()),
};

/**
 * Organization keys name the merchant in the query (Document 2, "Offer prices"); the body field is also
 * accepted on create, as on every other create, and must then agree with the query.
 */
export const CreateOfferPriceBody = StrictObject({ ...PriceInputFields, merchant_id: MerchantIdField });

export const UpdateOfferPriceBody = StrictObject({
  currency: Type.Optional(Currency),
  amount: Type.Optional(MinorUnits),
  first_charge_amount: Type.Optional(Nullable(FirstChargeUnits)),
  is_default: Type.Optional(Type.Boolean()),
});

export const OfferPricesParams = StrictObject({ offerId: Id('ofr') });
export const OfferPriceParams = StrictObject({ id: Id('opr') });
export const MerchantQuery = StrictObject({ merchant_id: MerchantIdField });

export const ListOfferPricesQuery = StrictObject({
  ...PaginationQuery,
  currency: Type.Optional(Currency),
  is_default: Type.Optional(Type.Boolean()),
  merchant_id: MerchantIdField,
});

export const OfferPriceObject = StrictObject({
  id: Type.String(),
  offer_id: Type.String(),
  currency: Type.String(),
  amount: Money('The price per cycle (or of the one-time offer)'),
  first_charge_amount: Nullable(Money('The first charge, when it differs from amount (null: amount)')),
  is_default: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
