/**
 * card_tokens and card_token_cvcs, written by the API (mint, enrolment) and by the charge activities (claim, spend):
 * the one home of their SQL. A token is single-use: claimed (used_by) by the one operation that may charge it, then
 * spent — its sealed PAN, name and CVC wiped — or released when that operation got no answer.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

const affected = (result: unknown) => (result as { affectedRows?: number }).affectedRows ?? 0;

/** Claims an active token for `claimant` (idempotent for the same claimant); false when another holds it. */
export async function claimToken(em: EntityManager, tokenId: string, claimant: string): Promise<boolean> {
  const claimed = await em.execute<Array<{ id: string }>>(
    `update card_tokens set used_by = ? where id = ? and status = 'active' and (used_by is null or used_by = ?)
     returning id`,
    [claimant, tokenId, claimant],
  );
  return claimed.length > 0;
}

/** Gives the claim back (the operation that held it got no answer and may be retried). */
export async function releaseClaim(em: EntityManager, tokenId: string, claimant: string): Promise<void> {
  await em.execute(`update card_tokens set used_by = null where id = ? and used_by = ? and status = 'active'`, [
    tokenId,
    claimant,
  ]);
}

/** The token is spent by `usedBy`: marked used and its sealed card data wiped, CVC row included. */
export async function spendToken(em: EntityManager, tokenId: string, usedBy: string): Promise<void> {
  await em.execute(
    `update card_tokens set status = 'used', used_at = now(), used_by = ?, pan_encrypted = null,
            holder_name_encrypted = null, updated_at = now()
     where id = ? and status = 'active'`,
    [usedBy, tokenId],
  );
  await em.execute('delete from card_token_cvcs where card_token_id = ?', [tokenId]);
}

/**
 * Wipes the sealed card data of tokens past their expiry (CVC rows deleted, PAN and name nulled, status expired),
 * skipping rows another transaction holds locked. Returns how many tokens and CVCs were wiped.
 */
export async function wipeExpiredTokens(tx: EntityManager, now: Date): Promise<{ tokens: number; cvcs: number }> {
  const cvcs = await tx.execute('delete from card_token_cvcs where expires_at <= ?', [now], 'run');
  const tokens = await tx.execute(
    `update card_tokens set status = 'expired', pan_encrypted = null, holder_name_encrypted = null, updated_at = now()
      where id in (select id from card_tokens where status = 'active' and expires_at <= ? for update skip locked)`,
    [now],
    'run',
  );
  return { tokens: affected(tokens), cvcs: affected(cvcs) };
}
