/**
 * refresh_tokens: raw SQL on the table lives here. The Dashboard sign-in service writes sessions through the
 * entity (api/modules/auth/sessions.service.ts); housekeeping deletes the families that can no longer be used.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Deletes every row of each family that has no usable token left (no row that is unrotated, unrevoked and
 * unexpired, within the family's own lifetime). A live family keeps its rotated tokens: they are what lets a
 * reused (stolen) token be recognised and the family revoked (RFC 9700 §4.14.2). Once nothing in the family can be
 * refreshed, presenting any of its tokens is a 401 either way, so the rows have no purpose left.
 */
export async function purgeDeadFamilies(em: EntityManager, now: Date, batch = 5000): Promise<number> {
  let purged = 0;
  for (;;) {
    const result = await em.execute(
      `delete from refresh_tokens where id in (
         select r.id from refresh_tokens r
          where not exists (
            select 1 from refresh_tokens l
             where l.family_id = r.family_id and l.rotated_at is null and l.revoked_at is null
               and l.expires_at > ? and l.family_expires_at > ?)
          limit ?)`,
      [now, now, batch],
      'run',
    );
    const affected = (result as { affectedRows?: number }).affectedRows ?? 0;
    purged += affected;
    if (affected < batch) return purged;
  }
}
