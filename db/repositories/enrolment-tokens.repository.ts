/**
 * enrolment_tokens: minted by the merchant's server, spent by a browser's card enrolment
 * (api/modules/tokens/enrolment-tokens.service.ts). Stored by the token's SHA-256: every function takes the hash.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Deletes every token that expired before `before` (kept until then so a late use is told "expired"). */
export async function purgeExpiredEnrolmentTokens(em: EntityManager, before: Date): Promise<void> {
  await em.execute('delete from enrolment_tokens where expires_at < ?', [before]);
}

export async function insertEnrolmentToken(
  em: EntityManager,
  token: { tokenHash: string; merchantId: string; customerId: string; expiresAt: Date; createdAt: Date },
): Promise<void> {
  await em.execute(
    'insert into enrolment_tokens (token_hash, merchant_id, customer_id, expires_at, created_at) values (?, ?, ?, ?, ?)',
    [token.tokenHash, token.merchantId, token.customerId, token.expiresAt, token.createdAt],
  );
}

/** The customer of the merchant's token when `usedBy` may still use it (unspent, or spent by `usedBy`), else null. */
export async function usableEnrolmentTokenCustomer(
  em: EntityManager,
  merchantId: string,
  tokenHash: string,
  usedBy: string,
  now: Date,
): Promise<string | null> {
  const [row] = await em.execute<Array<{ customer_id: string }>>(
    `select customer_id from enrolment_tokens
      where token_hash = ? and merchant_id = ? and expires_at > ? and (used_by is null or used_by = ?)`,
    [tokenHash, merchantId, now, usedBy],
  );
  return row?.customer_id ?? null;
}

/** Spends the merchant's token on `usedBy` in one statement; false when it cannot be (the same test as above). */
export async function markEnrolmentTokenUsed(
  em: EntityManager,
  merchantId: string,
  tokenHash: string,
  usedBy: string,
  now: Date,
): Promise<boolean> {
  const spent = await em.execute<Array<{ token_hash: string }>>(
    `update enrolment_tokens set used_by = ?
      where token_hash = ? and merchant_id = ? and expires_at > ? and (used_by is null or used_by = ?)
      returning token_hash`,
    [usedBy, tokenHash, merchantId, now, usedBy],
  );
  return spent.length > 0;
}
