/**
 * Counting round trips: the SQL statements sent through an EntityManager's connection while `work` runs (the API,
 * the worker and the outbox listener of the test stack share one pg driver).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export async function statementsOf<T>(
  em: EntityManager,
  work: () => Promise<T>,
): Promise<{ result: T; sql: string[] }> {
  const sql: string[] = [];
  const knex = em.getConnection().getKnex();
  const count = (query: { sql: string }) => void sql.push(query.sql);
  knex.on('query', count);
  try {
    return { result: await work(), sql };
  } finally {
    knex.off('query', count);
  }
}
