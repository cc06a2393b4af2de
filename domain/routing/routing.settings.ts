/**
 * A merchant's routing settings: the decline table — which decline categories (and, optionally, raw
 * provider codes) move the charge on to the next connector and which stop it. Absent rows and unmapped entries
 * keep today's behaviour (RETRYABLE_OUTCOMES: soft declines, processing and network errors move on; hard declines
 * stop; an unknown outcome always stops).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DECLINE_CATEGORIES,
  RETRYABLE_OUTCOMES,
  type CascadePolicy,
  type DeclineAction,
  type DeclineCategory,
} from '../../workflows/lib/transaction-types';
import {
  saveRoutingSettings,
  storedRoutingSettings,
  type StoredRoutingSettings,
} from '../../db/repositories/routing.repository';

export const defaultDeclineActions = (): Record<DeclineCategory, DeclineAction> =>
  Object.fromEntries(
    DECLINE_CATEGORIES.map((category) => [
      category,
      RETRYABLE_OUTCOMES.has(category) ? 'retry_next_connector' : 'stop',
    ]),
  ) as Record<DeclineCategory, DeclineAction>;

export interface RoutingSettings {
  /** Every category with its action (the stored ones over the defaults). */
  declineActions: Record<DeclineCategory, DeclineAction>;
  /** Raw provider codes with their own action (win over the code's category). */
  codeActions: Record<string, DeclineAction>;
  /** When the merchant last saved them; null: never (the defaults). */
  updatedAt: Date | null;
}

export async function readRoutingSettings(em: EntityManager, merchantId: string): Promise<RoutingSettings> {
  return routingSettingsOf(await storedRoutingSettings(em, merchantId));
}

/** A merchant's settings from its stored row (none: the defaults). */
export const routingSettingsOf = (row: StoredRoutingSettings | null): RoutingSettings => ({
  declineActions: { ...defaultDeclineActions(), ...(row?.decline_actions ?? {}) },
  codeActions: { ...(row?.code_actions ?? {}) },
  updatedAt: row ? new Date(row.updated_at) : null,
});

export async function writeRoutingSettings(
  em: EntityManager,
  merchantId: string,
  settings: Pick<RoutingSettings, 'declineActions' | 'codeActions'>,
): Promise<void> {
  await saveRoutingSettings(em, merchantId, settings);
}

/** The policy the charge carries in its history: null when the merchant never changed the defaults. */
export function cascadePolicyOf(settings: RoutingSettings): CascadePolicy | null {
  if (!settings.updatedAt) return null;
  return { categories: settings.declineActions, codes: settings.codeActions };
}
