/**
 * Master-key rotation for envelope-encrypted columns: every value not yet under the keyring's current key has
 * its data key re-wrapped (domain/platform/crypto.ts rewrapSecret) — the encrypted data itself is never touched.
 * Batches of rows are locked, re-wrapped and written in one transaction each; rows already under the current
 * key are skipped, so the run is idempotent and may be interrupted and re-run at any time.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { masterKeyId, rewrapSecret, type Keyring } from './crypto';

export interface EncryptedColumn {
  table: string;
  column: string;
  /** The table's single-column primary key (batches walk it in order). */
  key: string;
}

/**
 * Every column holding envelope-encrypted text, found by the naming convention: a text column whose name ends
 * in `_encrypted` stores domain/platform/crypto.ts output (customers.document_number_encrypted, merchant_connectors.
 * credentials_encrypted / webhook_token_encrypted / webhook_secret_encrypted, and any added later).
 */
export async function encryptedColumns(em: EntityManager): Promise<EncryptedColumn[]> {
  const found = await em.execute<{ table: string; column: string; key: string; keys: number }[]>(
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
  for (const column of found) {
    if (column.keys !== 1) throw new Error(`${column.table} needs a single-column primary key for key rotation`);
  }
  return found.map(({ table, column, key }) => ({ table, column, key }));
}

export interface RotationResult {
  table: string;
  column: string;
  rewrapped: number;
}

/** A value that could not be re-wrapped: where it is and why (never the value). */
export interface RotationFailure {
  table: string;
  column: string;
  id: string;
  reason: string;
}

/**
 * Re-wraps what it can and reports what it cannot (a value under a key missing from the keyring, or not in the
 * envelope format): one bad row does not stop the rotation, but while failures remain the previous keys must
 * stay configured.
 */
export async function rotateEncryptionKeys(
  em: EntityManager,
  keys: Keyring,
  options: { batchSize?: number; onBatch?: (result: RotationResult) => void } = {},
): Promise<{ columns: RotationResult[]; failures: RotationFailure[] }> {
  const batchSize = options.batchSize ?? 500;
  const currentId = masterKeyId(keys.current);
  const columns: RotationResult[] = [];
  const failures: RotationFailure[] = [];
  for (const { table, column, key } of await encryptedColumns(em)) {
    const result = { table, column, rewrapped: 0 };
    // Keyset pagination on the primary key: every batch makes progress, failed rows included.
    let after = '';
    for (;;) {
      const batch = await em.transactional(async (tx) => {
        // Identifiers come from the database catalog, never from input.
        const rows = await tx.execute<{ id: string; value: string }[]>(
          `select "${key}" as id, "${column}" as value from "${table}"
            where "${column}" is not null and split_part("${column}", '.', 2) <> ? and "${key}" > ?
            order by "${key}" limit ? for update`,
          [currentId, after, batchSize],
        );
        let rewrapped = 0;
        for (const row of rows) {
          let value: string;
          try {
            value = rewrapSecret(keys, row.value);
          } catch (error) {
            failures.push({ table, column, id: row.id, reason: (error as Error).message });
            continue;
          }
          await tx.execute(`update "${table}" set "${column}" = ? where "${key}" = ?`, [value, row.id]);
          rewrapped += 1;
        }
        return { size: rows.length, last: rows.at(-1)?.id, rewrapped };
      });
      result.rewrapped += batch.rewrapped;
      if (batch.rewrapped > 0) options.onBatch?.({ ...result });
      if (batch.size < batchSize || batch.last === undefined) break;
      after = batch.last;
    }
    columns.push(result);
  }
  return { columns, failures };
}
