import { EntitySchema } from '@mikro-orm/core';
import { createdAt, deletedAt, updatedAt } from './timestamps';

export const PRODUCT_TYPES = ['one_time', 'recurring'] as const;
export const PRODUCT_STATUSES = ['active', 'archived'] as const;

export interface Product {
  id: string;
  merchantId: string;
  productFamilyId: string | null;
  name: string;
  description: string | null;
  type: (typeof PRODUCT_TYPES)[number];
  /** Position in the family (higher = superior plan); null without a family; unique in the family. */
  tierOrder: number | null;
  status: (typeof PRODUCT_STATUSES)[number];
  metadata: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export const ProductSchema = new EntitySchema<Product>({
  name: 'Product',
  tableName: 'products',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    productFamilyId: { type: 'string', nullable: true },
    name: { type: 'string' },
    description: { type: 'text', nullable: true },
    type: { type: 'string' },
    tierOrder: { type: 'integer', nullable: true },
    status: { type: 'string' },
    metadata: { type: 'json', nullable: true },
    createdAt,
    updatedAt,
    deletedAt,
  },
});
