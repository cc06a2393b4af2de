/**
 * refunds: the counts and sums a refund's move is decided by, and the conditional writes of its settlement
 * (domain/transactions/transactions.refunds.ts, the one write path for a refund's result, and
 * transactions.operation-writes.ts, which creates the refund row through its entity).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** How many refunds of the transaction are still pending. */
export async function countPendingRefunds(em: EntityManager, transactionId: string): Promise<number> {
  const [row] = await em.execute<Array<{ n: string }>>(
    `select count(*) as n from refunds where transaction_id = ? and status = 'pending'`,
    [transactionId],
  );
  return Number(row.n);
}

/** The amount of the transaction's refunds still pending (it counts against what a new refund may take). */
export async function pendingRefundTotal(em: EntityManager, transactionId: string): Promise<number> {
  const [row] = await em.execute<Array<{ pending: string }>>(
    `select coalesce(sum(amount), 0) as pending from refunds where transaction_id = ? and status = 'pending'`,
    [transactionId],
  );
  return Number(row.pending);
}

/** A succeeded refund of the transaction whose success no transaction event has told yet (refunds.announced_at). */
export async function hasUnannouncedSuccess(em: EntityManager, transactionId: string): Promise<boolean> {
  const [row] = await em.execute<Array<{ n: string }>>(
    `select count(*) as n from refunds where transaction_id = ? and status = 'succeeded' and announced_at is null`,
    [transactionId],
  );
  return Number(row.n) > 0;
}

/** Marks the transaction's succeeded refunds as told (the event that tells them was recorded in the same transaction). */
export async function markSuccessesAnnounced(em: EntityManager, transactionId: string): Promise<void> {
  await em.execute(
    `update refunds set announced_at = now() where transaction_id = ? and status = 'succeeded' and announced_at is null`,
    [transactionId],
  );
}

/** A pending refund's provider reference, once the provider has one (its verdict comes later, by webhook). */
export async function recordRefundReference(
  em: EntityManager,
  refundId: string,
  providerReference: string | null,
): Promise<void> {
  await em.execute('update refunds set provider_reference = ?, updated_at = now() where id = ?', [
    providerReference,
    refundId,
  ]);
}
