import { EntitySchema } from '@mikro-orm/core';
import { createdAt, deletedAt, updatedAt } from './timestamps';

export const CHANGE_CHARGE_BEHAVIORS = ['next_renew', 'prorated', 'override'] as const;
export type ChangeChargeBehavior = (typeof CHANGE_CHARGE_BEHAVIORS)[number];

export interface ProductFamily {
  id: string;
  merchantId: string;
  name: string;
  /** Lowercase; unique per merchant among live families. */
  slug: string;
  description: string | null;
  /** Unique per merchant among live families when set. */
  customPlanId: string | null;
  changeChargeBehavior: ChangeChargeBehavior;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export const ProductFamilySchema = new EntitySchema<ProductFamily>({
  name: 'ProductFamily',
  tableName: 'product_families',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    name: { type: 'string' },
    slug: { type: 'string' },
    description: { type: 'text', nullable: true },
    customPlanId: { type: 'string', nullable: true },
    changeChargeBehavior: { type: 'string', default: 'next_renew' },
    createdAt,
    updatedAt,
    deletedAt,
  },
});
