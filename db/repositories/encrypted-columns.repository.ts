/**
 * Every envelope-encrypted column, whatever its table: the raw SQL of master-key rotation
 * (domain/platform/key-rotation.ts). Which table and column come from the database catalog, never from input; the
 * rotation re-wraps a value's data key and writes it back, nothing else of the row.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** A text column whose name ends in `_encrypted`, with its table's primary key (`keys`: how many columns it has). */
export interface EncryptedColumnRow {
  table: string;
  column: string;
  /** The first primary key column (by name); meaningful when `keys` is 1. */
  key: string;
  keys: number;
}

/** The envelope-encrypted columns of the current schema, by table and column. */
export async function encryptedColumnCatalog(em: EntityManager): Promise<EncryptedColumnRow[]> {
  return em.execute<EncryptedColumnRow[]>(
    `select c.table_name as table, c.column_name as column, min(k.column_name) as key, count(k.column_name)::int as keys
       from information_schema.columns c
       join information_schema.table_constraints t
         on t.table_schema = c.table_schema and t.table_name = c.table_name and t.constraint_type = 'PRIMARY KEY'
       join information_schema.key_column_usage k
         on k.constraint_schema = t.constraint_schema and k.constraint_name = t.constraint_name
      where c.table_schema = current_schema() and c.data_type = 'text' and c.column_name like '%\\_encrypted'
      group by c.table_name, c.column_name
      order by c.table_name, c.column_name`,
  );
}

/** A column from encryptedColumnCatalog with its single-column primary key. */
export interface EncryptedColumn {
  table: string;
  column: string;
  /** The table's single-column primary key (batches walk it in order). */
  key: string;
}

/**
 * The next `limit` values of the column not under the master key `currentKeyId`, after the key value `after` in
 * key order, locked until the caller's transaction ends.
 */
export async function lockValuesNotUnderKey(
  em: EntityManager,
  { table, column, key }: EncryptedColumn,
  currentKeyId: string,
  page: { after: string; limit: number },
): Promise<Array<{ id: string; value: string }>> {
  return em.execute<{ id: string; value: string }[]>(
    `select "${key}" as id, "${column}" as value from "${table}"
      where "${column}" is not null and split_part("${column}", '.', 2) <> ? and "${key}" > ?
      order by "${key}" limit ? for update`,
    [currentKeyId, page.after, page.limit],
  );
}

export async function writeEncryptedValue(
  em: EntityManager,
  { table, column, key }: EncryptedColumn,
  id: string,
  value: string,
): Promise<void> {
  await em.execute(`update "${table}" set "${column}" = ? where "${key}" = ?`, [value, id]);
}
