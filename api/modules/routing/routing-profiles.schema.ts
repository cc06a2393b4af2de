import { Type } from '@sinclair/typebox';
import { ROUTING_PAYMENT_METHODS } from '../../../db/entities';
import { Id, PaginationQuery, StrictObject, StringEnum, Timestamp } from '../../http/schema';

const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: 'Label, at most 100 characters, not blank',
});
const PaymentMethod = StringEnum(ROUTING_PAYMENT_METHODS, {
  description: 'The method this profile routes; * is the catch-all',
});
const Optimize = StringEnum(['none', 'approval_rate'] as const, {
  description:
    "approval_rate: each charge tries the plan's connectors ordered by their recent approval rate (last 15 minutes), with a 10% exploration share; none (default): the rules' order",
});
const DeactivateConflicting = Type.Boolean({
  description:
    'When activating would clash with the active profile for the same payment method, deactivate that one in the same transaction',
});

export const MerchantParams = StrictObject({ merchant_id: Id('mrc') });
export const ProfileParams = StrictObject({ merchant_id: Id('mrc'), profile_id: Id('rp') });

export const ListProfilesQuery = StrictObject({ ...PaginationQuery });
/** Routes without query parameters still refuse unknown ones (the merchant comes from the path). */
export const NoQuery = StrictObject({});

export const CreateProfileBody = StrictObject({
  name: Name,
  is_active: Type.Optional(
    Type.Boolean({ default: false, description: 'Default false: a new profile routes nothing until activated' }),
  ),
  payment_method: Type.Optional(PaymentMethod),
  default_merchant_connector_id: Id('conn'),
  deactivate_conflicting: Type.Optional(DeactivateConflicting),
  optimize: Type.Optional(Optimize),
});

export const UpdateProfileBody = StrictObject({
  name: Type.Optional(Name),
  is_active: Type.Optional(Type.Boolean()),
  deactivate_conflicting: Type.Optional(DeactivateConflicting),
  payment_method: Type.Optional(PaymentMethod),
  default_merchant_connector_id: Type.Optional(Id('conn')),
  optimize: Type.Optional(Optimize),
});

export const DefaultConnectorBody = StrictObject({ merchant_connector_id: Id('conn') });

export const ProfileObject = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  name: Type.String(),
  is_active: Type.Boolean(),
  version: Type.Integer(),
  payment_method: PaymentMethod,
  default_merchant_connector_id: Type.String(),
  optimize: Optimize,
  created_at: Timestamp,
  updated_at: Timestamp,
});
