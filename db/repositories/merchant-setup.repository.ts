/**
 * Whether a merchant configured what taking a payment and hearing of it needs (the Dashboard's setup checklist):
 * an active connector, an active routing profile and an active webhook endpoint, read in one statement.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface MerchantSetup {
  connector: boolean;
  routing: boolean;
  webhook: boolean;
}

export async function readMerchantSetup(em: EntityManager, merchantId: string): Promise<MerchantSetup> {
  const [row] = await em.execute<MerchantSetup[]>(
    `select exists(select 1 from merchant_connectors where merchant_id = ? and is_active) as connector,
            exists(select 1 from routing_profiles where merchant_id = ? and is_active) as routing,
            exists(select 1 from merchant_webhook_configs where merchant_id = ? and is_active) as webhook`,
    [merchantId, merchantId, merchantId],
  );
  return { connector: row.connector, routing: row.routing, webhook: row.webhook };
}
