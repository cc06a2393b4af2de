/**
 * password_reset_tokens: raw SQL on the table lives here. Forgot-password and the bootstrap owner's one-time link
 * write tokens through the entity; housekeeping deletes the ones that can no longer be used.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Deletes used and expired reset tokens (either way a presented one is a 401 `INVALID_CREDENTIALS`). */
export async function purgeSpentTokens(em: EntityManager, now: Date): Promise<number> {
  const result = await em.execute(
    'delete from password_reset_tokens where used_at is not null or expires_at <= ?',
    [now],
    'run',
  );
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}
