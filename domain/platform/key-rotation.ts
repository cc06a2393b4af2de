/**
 * Master-key rotation for envelope-encrypted columns: every value not yet under the keyring's current key has
 * its data key re-wrapped (domain/platform/crypto.ts rewrapSecret) — the encrypted data itself is never touched.
 * Batches of rows are locked, re-wrapped and written in one transaction each; rows already under the current
 * key are skipped, so the run is idempotent and may be interrupted and re-run at any time.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  encryptedColumnCatalog,
  lockValuesNotUnderKey,
  writeEncryptedValue,
  type EncryptedColumn,
} from '../../db/repositories/encrypted-columns.repository';
import { masterKeyId, rewrapSecret, type Keyring } from './crypto';

/**
 * Every column holding envelope-encrypted text, found by the naming convention: a text column whose name ends
 * in `_encrypted` stores domain/platform/crypto.ts output (customers.document_number_encrypted, merchant_connectors.
 * credentials_encrypted / webhook_token_encrypted / webhook_secret_encrypted, and any added later).
 */
export async function encryptedColumns(em: EntityManager): Promise<EncryptedColumn[]> {
  const found = await encryptedColumnCatalog(em);
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
  for (const encrypted of await encryptedColumns(em)) {
    const { table, column } = encrypted;
    const result = { table, column, rewrapped: 0 };
    // Keyset pagination on the primary key: every batch makes progress, failed rows included.
    let after = '';
    for (;;) {
      const batch = await em.transactional(async (tx) => {
        const rows = await lockValuesNotUnderKey(tx, encrypted, currentId, { after, limit: batchSize });
        let rewrapped = 0;
        for (const row of rows) {
          let value: string;
          try {
            value = rewrapSecret(keys, row.value);
          } catch (error) {
            failures.push({ table, column, id: row.id, reason: (error as Error).message });
            continue;
          }
          await writeEncryptedValue(tx, encrypted, row.id, value);
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
