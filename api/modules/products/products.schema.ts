import { Type } from '@sinclair/typebox';
import { PRODUCT_STATUSES, PRODUCT_TYPES } from '../../../db/entities';
import {
  DateRangeQuery,
  Id,
  MerchantIdField,
  Metadata,
  MultiEnum,
  Nullable,
  PaginationQuery,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';

/** Same limit as customer metadata (Document 2 gives none for products). */
export const PRODUCT_METADATA_MAX_BYTES = 5 * 1024;

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Description = Type.String({ maxLength: 2000 });
const ProductType = StringEnum(PRODUCT_TYPES);
const ProductStatus = StringEnum(PRODUCT_STATUSES);
const TierOrder = Type.Integer({
  minimum: 0,
  maximum: 2147483647,
  description: 'Position in the family; higher is a superior plan',
});

export const CreateProductBody = StrictObject({
  name: Name,
  type: ProductType,
  status: ProductStatus,
  product_family_id: Type.Optional(Nullable(Id('pfa'))),
  tier_order: Type.Optional(Nullable(TierOrder)),
  description: Type.Optional(Nullable(Description)),
  metadata: Type.Optional(Nullable(Metadata(PRODUCT_METADATA_MAX_BYTES))),
  merchant_id: MerchantIdField,
});

export const UpdateProductBody = StrictObject({
  name: Type.Optional(Name),
  type: Type.Optional(ProductType),
  status: Type.Optional(ProductStatus),
  product_family_id: Type.Optional(Nullable(Id('pfa'))),
  tier_order: Type.Optional(Nullable(TierOrder)),
  description: Type.Optional(Nullable(Description)),
  metadata: Type.Optional(Nullable(Metadata(PRODUCT_METADATA_MAX_BYTES))),
});

export const ProductParams = StrictObject({ productId: Id('prd') });

/** merchant_id for organization keys on calls without a body. */
export const MerchantQuery = StrictObject({ merchant_id: MerchantIdField });

export const ListProductsQuery = StrictObject({
  ...PaginationQuery,
  type: Type.Optional(MultiEnum(PRODUCT_TYPES)),
  status: Type.Optional(MultiEnum(PRODUCT_STATUSES)),
  product_family_id: Type.Optional(Id('pfa')),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Partial match, case-insensitive' })),
  ...DateRangeQuery,
  merchant_id: MerchantIdField,
});

export const ProductObject = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  product_family_id: Nullable(Type.String()),
  name: Type.String(),
  description: Nullable(Type.String()),
  type: ProductType,
  tier_order: Nullable(Type.Integer()),
  status: ProductStatus,
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Timestamp,
  updated_at: Timestamp,
});
