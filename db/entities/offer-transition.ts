import { EntitySchema } from '@mikro-orm/core';
import type { ChangeChargeBehavior } from './product-family';
import { createdAt, updatedAt } from './timestamps';

export interface OfferTransition {
  id: string;
  merchantId: string;
  /** The pair is immutable and unique. */
  fromOfferId: string;
  toOfferId: string;
  /** null = use the product family's behaviour. */
  changeChargeBehavior: ChangeChargeBehavior | null;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const OfferTransitionSchema = new EntitySchema<OfferTransition>({
  name: 'OfferTransition',
  tableName: 'offer_transitions',
  properties: {
    id: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    fromOfferId: { type: 'string' },
    toOfferId: { type: 'string' },
    changeChargeBehavior: { type: 'string', nullable: true },
    isActive: { type: 'boolean', default: true },
    createdAt,
    updatedAt,
  },
});
