/**
 * Reads of the charges a connector made that still need its provider: what keeps a connector from being deleted.
 * Deleting it destroys its credentials, so nothing could capture or void a hold, learn a pending refund's verdict,
 * settle an attempt whose answer was lost, or give back money taken on an unpaid charge.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Up to `limit` ids of this merchant's transactions that still need the connector's provider: in a state that
 * waits on it, with a refund it has not decided, or with an attempt there that is in flight, unresolved (its
 * answer lost) or whose give-back is pending.
 */
export async function transactionsAwaitingConnector(
  em: EntityManager,
  merchantId: string,
  connectorId: string,
  /** The statuses that wait on the provider (the state table's), and the unresolved attempt's error_code. */
  awaiting: { statuses: readonly string[]; unresolvedCode: string },
  limit = 10,
): Promise<string[]> {
  const rows = await em.execute<Array<{ id: string }>>(
    `select t.id from transactions t
      where t.merchant_id = ? and t.connector_id = ?
        and (t.status in (?) or exists (select 1 from refunds r where r.transaction_id = t.id and r.status = 'pending'))
     union
     select t.id from transaction_attempts a join transactions t on t.id = a.transaction_id
      where t.merchant_id = ? and a.connector_id = ?
        and (t.status = 'pending' or a.error_code = ? or a.give_back_status = 'pending')
     order by id limit ?`,
    [merchantId, connectorId, awaiting.statuses, merchantId, connectorId, awaiting.unresolvedCode, limit],
  );
  return rows.map((row) => row.id);
}
