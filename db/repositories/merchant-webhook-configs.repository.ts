/**
 * merchant_webhook_configs: created and edited by the API through its entity (api/modules/webhooks/); the
 * delivery activity's two conditional single-statement writes live here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** last_triggered_at only ever moves forward (deliveries finish out of order). */
export async function touchLastTriggered(em: EntityManager, configId: string, at: Date): Promise<void> {
  await em.execute(
    'update merchant_webhook_configs set last_triggered_at = greatest(coalesce(last_triggered_at, ?), ?) where id = ?',
    [at, at, configId],
  );
}

/** Deactivates an active configuration (a 410 from its receiver); true when this call did it. */
export async function deactivateConfig(em: EntityManager, configId: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    'update merchant_webhook_configs set is_active = false, updated_at = now() where id = ? and is_active returning id',
    [configId],
  );
  return rows.length > 0;
}
