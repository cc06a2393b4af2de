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

/** Lowercase, URL-safe: letters, digits and single dashes between them (uppercase is rejected, not folded). */
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Slug = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: SLUG_PATTERN,
  description: 'Lowercase letters, digits and dashes',
});
const Description = Type.String({ maxLength: 2000 });
const CustomPlanId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'External plan reference; unique per merchant among live families',
});
const Behavior = StringEnum(CHANGE_CHARGE_BEHAVIORS);

export const CreateProductFamilyBody = StrictObject({
  name: Name,
  slug: Slug,
  description: Type.Optional(Nullable(Description)),
  custom_plan_id: Type.Optional(Nullable(CustomPlanId)),
  change_charge_behavior: Type.Optional(Behavior),
  merchant_id: MerchantIdField,
});

export const UpdateProductFamilyBody = StrictObject({
  name: Type.Optional(Name),
  slug: Type.Optional(Slug),
  description: Type.Optional(Nullable(Description)),
  custom_plan_id: Type.Optional(Nullable(CustomPlanId)),
  change_charge_behavior: Type.Optional(Behavior),
});

export const ProductFamilyParams = StrictObject({ productFamilyId: Id('pfa') });

/** merchant_id for organization keys on calls without a body (get, patch, delete, restore). */
export const MerchantQuery = StrictObject({ merchant_id: MerchantIdField });

export const ListProductFamiliesQuery = StrictObject({
  ...PaginationQuery,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Partial match, case-insensitive' })),
  slug: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Exact match' })),
  change_charge_behavior: Type.Optional(MultiEnum(CHANGE_CHARGE_BEHAVIORS)),
  merchant_id: MerchantIdField,
});

export const ProductFamilyObject = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  description: Nullable(Type.String()),
  custom_plan_id: Nullable(Type.String()),
  change_charge_behavior: Behavior,
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Type.Optional(Timestamp),
});
