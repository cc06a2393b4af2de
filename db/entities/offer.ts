import { EntitySchema } from '@mikro-orm/core';
import { createdAt, deletedAt, updatedAt } from './timestamps';

export const BILLING_CYCLES = [
  'daily',
  'biweekly',
  'monthly',
  'quarterly',
  'half_yearly',
  'yearly',
  'custom',
  'none',
] as const;
export type BillingCycle = (typeof BILLING_CYCLES)[number];
export const OFFER_STATUSES = ['active', 'archived'] as const;

export interface Offer {
  id: string;
  merchantId: string;
  productId: string;
  name: string;
  /** Lowercase; unique per product among live offers. */
  slug: string;
  description: string | null;
  billingCycle: BillingCycle;
  /** Required when billingCycle is custom. */
  customBillingDays: number | null;
  /** Maximum number of charges; null = until cancelled. */
  cycleLimit: number | null;
  freeTrial: boolean;
  /** Required when freeTrial. */
  trialDays: number | null;
  setupCharge: boolean;
  renewAfterCycleLimit: boolean;
  /** Same product family; null = the same offer. */
  renewalOfferId: string | null;
  /** At most one live default offer per product. */
  isDefault: boolean;
  status: (typeof OFFER_STATUSES)[number];
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export const OfferSchema = new EntitySchema<Offer>({
  name: 'Offer',
  tableName: 'offers',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    productId: { type: 'string' },
    name: { type: 'string' },
    slug: { type: 'string' },
    description: { type: 'text', nullable: true },
    billingCycle: { type: 'string' },
    customBillingDays: { type: 'integer', nullable: true },
    cycleLimit: { type: 'integer', nullable: true },
    freeTrial: { type: 'boolean', default: false },
    trialDays: { type: 'integer', nullable: true },
    setupCharge: { type: 'boolean', default: false },
    renewAfterCycleLimit: { type: 'boolean', default: false },
    renewalOfferId: { type: 'string', nullable: true },
    isDefault: { type: 'boolean', default: false },
    status: { type: 'string' },
    createdAt,
    updatedAt,
    deletedAt,
  },
});
