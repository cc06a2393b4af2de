import { stack } from './stack';

/** Runs SQL against the test database outside any request — for arranging fixtures and checking what is stored. */
export async function rows(sql: string, params: unknown[] = []): Promise<any[]> {
  return stack().orm.em.fork().execute(sql, params);
}
