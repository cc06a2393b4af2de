/**
 * The merchant activity log: every administrative action (merchant, connector, routing, member changes)
 * records what changed, by whom and when, in the same transaction as the change itself.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantActivitySchema, type ActorType, type MerchantActivity } from '../../db/entities';
import { newId } from '../platform/ids';

export interface Actor {
  type: ActorType;
  id: string | null;
}

export const actorOf = (auth: { keyId: string }): Actor => ({ type: 'api_key', id: auth.keyId });

export interface ActivityInput {
  organizationId: string;
  merchantId: string;
  /** resource.verb, e.g. merchant.updated, connector.created */
  action: string;
  actor: Actor;
  /** What changed — names and non-secret values only (a credential change is recorded as changed, never its value). */
  changes?: Record<string, unknown> | null;
}

export function recordActivity(em: EntityManager, input: ActivityInput): MerchantActivity {
  return em.create(MerchantActivitySchema, {
    id: newId('act'),
    organizationId: input.organizationId,
    merchantId: input.merchantId,
    action: input.action,
    actorType: input.actor.type,
    actorId: input.actor.id,
    changes: input.changes ?? null,
  } as MerchantActivity);
}

/** {field: {from, to}} for the fields whose value differs; secrets must be passed as booleans or omitted. */
export function diff(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(after)) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key]))
      changes[key] = { from: before[key] ?? null, to: after[key] ?? null };
  }
  return changes;
}
