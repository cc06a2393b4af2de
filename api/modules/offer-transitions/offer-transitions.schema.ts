import { Type } from '@sinclair/typebox';
import { CHANGE_CHARGE_BEHAVIORS } from '../../../db/entities';
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

const Behavior = StringEnum(CHANGE_CHARGE_BEHAVIORS);
const OfferId = Id('ofr');

export const CreateOfferTransitionBody = StrictObject({
  from_offer_id: OfferId,
  to_offer_id: OfferId,
  change_charge_behavior: Type.Optional(Nullable(Behavior)),
  is_active: Type.Optional(Type.Boolean({ default: true })),
  merchant_id: MerchantIdField,
});

/** The pair (from_offer_id, to_offer_id) is immutable: sending either is refused as an unknown field. */
export const UpdateOfferTransitionBody = StrictObject({
  change_charge_behavior: Type.Optional(Nullable(Behavior)),
  is_active: Type.Optional(Type.Boolean()),
});

export const OfferTransitionParams = StrictObject({ id: Id('oft') });
export const MerchantQuery = StrictObject({ merchant_id: MerchantIdField });

export const ListOfferTransitionsQuery = StrictObject({
  ...PaginationQuery,
  from_offer_id: Type.Optional(OfferId),
  to_offer_id: Type.Optional(OfferId),
  is_active: Type.Optional(Type.Boolean()),
  change_charge_behavior: Type.Optional(MultiEnum(CHANGE_CHARGE_BEHAVIORS)),
  merchant_id: MerchantIdField,
});

export const EffectiveBehaviorQuery = StrictObject({
  from_offer_id: OfferId,
  to_offer_id: OfferId,
  merchant_id: MerchantIdField,
});

export const OfferTransitionObject = StrictObject({
  id: Type.String(),
  from_offer_id: Type.String(),
  to_offer_id: Type.String(),
  change_charge_behavior: Nullable(Behavior),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const EffectiveBehaviorObject = StrictObject({
  from_offer_id: Type.String(),
  to_offer_id: Type.String(),
  change_charge_behavior: Behavior,
  source: StringEnum(['transition', 'family'] as const, {
    description: "transition: the pair's active transition decided; family: the family default applied",
  }),
  offer_transition_id: Nullable(
    Type.String({ description: "The pair's transition when one exists (even if it did not decide)" }),
  ),
  product_family_id: Type.String(),
});
