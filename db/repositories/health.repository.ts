/** The health probe's statement: it reads no table, it only proves PostgreSQL answers on a pooled connection. */
import type { EntityManager } from '@mikro-orm/postgresql';

export async function pingDatabase(em: EntityManager): Promise<void> {
  await em.execute('select 1');
}
