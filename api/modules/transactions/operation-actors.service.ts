/**
 * Who asked for a capture, void or refund, and the order history entries that name them (a Dashboard
 * user's refund must not read "by api"). The operation workflow writes the history (triggered_by api or system); the
 * route records the caller beside it (db/repositories/payment-operation-actors.repository.ts), keyed by the operation
 * id that prefixes those entries' transition keys.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { PaymentOperationActorSchema, type ActorSnapshot } from '../../../db/entities';
import type { ApiKeyAuth } from '../../http/auth';
import type { DashboardSession } from '../../http/dashboard-auth';
import { apiKeyCaller, dashboardCaller } from '../subscriptions/subscription-operations.service';

/** The caller of a route served both to API keys and to merchant Dashboard sessions (no key on the latter). */
export async function callerSnapshot(
  em: EntityManager,
  input: { auth: ApiKeyAuth | undefined; readonly session: DashboardSession },
): Promise<ActorSnapshot> {
  const caller = input.auth ? await apiKeyCaller(em, input.auth.keyId) : await dashboardCaller(em, input.session);
  return caller.actor!;
}

/** `<operation id>:begin` → the operation id (keys of other moves match no operation and get no actor). */
const operationIdOf = (transitionKey: string) => transitionKey.slice(0, transitionKey.lastIndexOf(':'));

/** For each transition key of an order's history: who asked for the operation behind it, when one did. */
export async function actorsOfHistory(
  em: EntityManager,
  merchantId: string,
  transitionKeys: string[],
): Promise<Map<string, ActorSnapshot>> {
  const ids = [...new Set(transitionKeys.map(operationIdOf).filter(Boolean))];
  const rows = ids.length ? await em.find(PaymentOperationActorSchema, { operationId: { $in: ids }, merchantId }) : [];
  const byOperation = new Map(rows.map((row) => [row.operationId, row.actor]));
  return new Map(
    transitionKeys.flatMap((key) => {
      const actor = byOperation.get(operationIdOf(key));
      return actor ? [[key, actor] as const] : [];
    }),
  );
}
