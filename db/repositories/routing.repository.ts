/**
 * The routing family's raw SQL besides the charge's one read (routing-plan.repository.ts): moving the one active
 * profile of a payment method, and a merchant's decline table (merchant_routing_settings). Profiles and nodes are
 * otherwise written through their entities by api/modules/routing/.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeclineAction } from '../../workflows/lib/transaction-types';

/**
 * The merchant's active profile for this payment method other than `exceptProfileId`, or null. Plain SQL: never
 * a stale identity-map copy.
 */
export async function activeRoutingProfileFor(
  em: EntityManager,
  merchantId: string,
  paymentMethod: string,
  exceptProfileId: string,
): Promise<string | null> {
  const rows = await em.execute<{ id: string }[]>(
    'select id from routing_profiles where merchant_id = ? and payment_method = ? and is_active and id <> ?',
    [merchantId, paymentMethod, exceptProfileId],
  );
  return rows[0]?.id ?? null;
}

/**
 * Deactivates the merchant's profile if it is active (atomic version bump; the update takes the row lock): its
 * new version, or null when it was not active.
 */
export async function deactivateRoutingProfile(
  em: EntityManager,
  merchantId: string,
  profileId: string,
): Promise<number | null> {
  const rows = await em.execute<{ version: number }[]>(
    `update routing_profiles set is_active = false, version = version + 1, updated_at = now()
      where id = ? and merchant_id = ? and is_active returning version`,
    [profileId, merchantId],
  );
  return rows[0]?.version ?? null;
}

/** The merchant_routing_settings row (timestamps as Date or, read as JSON, text). */
export interface StoredRoutingSettings {
  decline_actions: Record<string, DeclineAction>;
  code_actions: Record<string, DeclineAction>;
  updated_at: Date | string;
}

/** The merchant's stored decline table, or null when it never saved one. */
export async function storedRoutingSettings(
  em: EntityManager,
  merchantId: string,
): Promise<StoredRoutingSettings | null> {
  const [row] = await em.execute<StoredRoutingSettings[]>(
    'select decline_actions, code_actions, updated_at from merchant_routing_settings where merchant_id = ?',
    [merchantId],
  );
  return row ?? null;
}

/** Saves the merchant's decline table (one upsert). */
export async function saveRoutingSettings(
  em: EntityManager,
  merchantId: string,
  actions: { declineActions: Record<string, DeclineAction>; codeActions: Record<string, DeclineAction> },
): Promise<void> {
  await em.execute(
    `insert into merchant_routing_settings (merchant_id, decline_actions, code_actions, updated_at)
     values (?, ?::jsonb, ?::jsonb, now())
     on conflict (merchant_id) do update set decline_actions = excluded.decline_actions,
       code_actions = excluded.code_actions, updated_at = now()`,
    [merchantId, JSON.stringify(actions.declineActions), JSON.stringify(actions.codeActions)],
  );
}
