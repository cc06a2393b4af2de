/**
 * payment_operation_actors: who asked for each capture, void and refund, keyed by the operation id. Written once per
 * operation by the route that accepted it (api/modules/transactions/operations.routes.ts), read through its entity
 * beside the order history (operation-actors.service.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PaymentOperationActor } from '../entities';

/**
 * Records the operation's caller once the operation was accepted (a refused one changes nothing); a replay keeps the
 * first.
 */
export async function recordOperationActor(
  em: EntityManager,
  entry: Omit<PaymentOperationActor, 'createdAt'>,
): Promise<void> {
  await em.getConnection().execute(
    `insert into payment_operation_actors (operation_id, merchant_id, transaction_id, kind, actor)
       values (?, ?, ?, ?, ?) on conflict (operation_id) do nothing`,
    [entry.operationId, entry.merchantId, entry.transactionId, entry.kind, JSON.stringify(entry.actor)],
  );
}
