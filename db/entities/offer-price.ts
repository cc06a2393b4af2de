import { BigIntType, EntitySchema } from '@mikro-orm/core';
import { createdAt, deletedAt, updatedAt } from './timestamps';

export interface OfferPrice {
  id: string;
  merchantId: string;
  offerId: string;
  /** ISO 4217; unique per offer among live prices. */
  currency: string;
  /** Minor units, >= 0. */
  amount: number;
  /** First-cycle price in minor units; null = the standard amount (see workflows/lib/pricing.ts). */
  firstChargeAmount: number | null;
  /** At most one live default per offer. */
  isDefault: boolean;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export const OfferPriceSchema = new EntitySchema<OfferPrice>({
  name: 'OfferPrice',
  tableName: 'offer_prices',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    offerId: { type: 'string' },
    currency: { type: 'string' },
    amount: { type: new BigIntType('number') },
    firstChargeAmount: { type: new BigIntType('number'), nullable: true },
    isDefault: { type: 'boolean', default: false },
    createdAt,
    updatedAt,
    deletedAt,
  },
});
