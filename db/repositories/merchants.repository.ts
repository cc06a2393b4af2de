/**
 * merchants, with their members and users: the raw SQL on them. The merchants service creates and edits merchants
 * through the entity; authentication reads an organization's merchant's status here, and the merchant delete
 * cascade is a few set-based statements here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MerchantStatus } from '../entities';

/**
 * A merchant of this organization's status, or null when the organization has no such merchant: one read for
 * both what an organization key may reach and whether that merchant may write.
 */
export async function organizationMerchantStatus(
  em: EntityManager,
  organizationId: string,
  merchantId: string,
): Promise<MerchantStatus | null> {
  const [row] = await em.execute<{ status: MerchantStatus }[]>(
    'select status from merchants where id = ? and organization_id = ?',
    [merchantId, organizationId],
  );
  return row?.status ?? null;
}

/** A table whose rows name a merchant (merchant_id), optionally only the rows matching `where`. */
export interface MerchantRowsCheck {
  table: string;
  where?: string;
}

/** Whether the table holds a row of the merchant. Table and condition are the caller's constants, never input. */
export async function merchantHasRows(
  em: EntityManager,
  merchantId: string,
  check: MerchantRowsCheck,
): Promise<boolean> {
  const [row] = await em.execute<Array<{ used: boolean }>>(
    `select exists (select 1 from ${check.table} where merchant_id = ?${check.where ? ` and ${check.where}` : ''}) as used`,
    [merchantId],
  );
  return row.used;
}

/** Deletes these users unless they still hold a membership of some merchant. */
export async function deleteUsersWithoutMembership(em: EntityManager, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await em.execute(
    `delete from merchant_users u where u.id in (${userIds.map(() => '?').join(', ')})
       and not exists (select 1 from merchant_members m where m.user_id = u.id)`,
    userIds,
  );
}

/** The last statement of the merchant delete cascade, scoped to the caller's organization. */
export async function deleteMerchantRow(em: EntityManager, organizationId: string, merchantId: string): Promise<void> {
  await em.execute('delete from merchants where id = ? and organization_id = ?', [merchantId, organizationId]);
}
