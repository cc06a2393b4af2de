import { EntitySchema } from '@mikro-orm/core';
import { createdAt } from './timestamps';

export type ActorType = 'api_key' | 'dashboard_user' | 'system';

/** One administrative action on a merchant: what changed, by whom, when. */
export interface MerchantActivity {
  id: string;
  organizationId: string;
  /** Not a foreign key: the record outlives a deleted merchant. */
  merchantId: string;
  /** e.g. merchant.created, merchant.updated, connector.created, routing_profile.updated */
  action: string;
  actorType: ActorType;
  /** ak_… for API keys, usr_… for Dashboard users, null for the system. */
  actorId: string | null;
  /** Field → {from, to}, or a summary; never secrets. */
  changes: Record<string, unknown> | null;
  createdAt: Date;
}

export const MerchantActivitySchema = new EntitySchema<MerchantActivity>({
  name: 'MerchantActivity',
  tableName: 'merchant_activities',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string' },
    merchantId: { type: 'string' },
    action: { type: 'string' },
    actorType: { type: 'string' },
    actorId: { type: 'string', nullable: true },
    changes: { type: 'json', nullable: true },
    createdAt,
  },
});
