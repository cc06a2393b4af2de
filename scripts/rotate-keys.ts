/**
 * `npm run rotate-keys`: re-wraps every encrypted column's data keys under ENCRYPTION_KEY, opening values
 * sealed under any key in ENCRYPTION_KEYS_PREVIOUS. Idempotent; see "Key rotation" in the README.
 */
import { loadKeyring } from '../domain/platform/config';
import { masterKeyId } from '../domain/platform/crypto';
import { rotateEncryptionKeys } from '../domain/platform/key-rotation';
import { ensureEncryptionKey, withLocalOrm } from './lib/local-stack';
import { log } from './lib/paths';

async function main(): Promise<void> {
  const keys = loadKeyring({ ...process.env, ENCRYPTION_KEY: ensureEncryptionKey() });
  log(
    `re-wrapping under key ${masterKeyId(keys.current)} (previous: ${keys.previous.map(masterKeyId).join(', ') || 'none'})`,
  );
  await withLocalOrm(async (orm) => {
    const { columns, failures } = await rotateEncryptionKeys(orm.em.fork(), keys, {
      onBatch: ({ table, column, rewrapped }) => log(`${table}.${column}: ${rewrapped} re-wrapped so far`),
    });
    for (const { table, column, rewrapped } of columns) log(`${table}.${column}: ${rewrapped} re-wrapped`);
    for (const { table, column, id, reason } of failures) log(`FAILED ${table}.${column} of ${id}: ${reason}`);
    if (failures.length > 0) {
      throw new Error(
        `${failures.length} value(s) could not be re-wrapped; keep the previous keys configured, fix them and re-run`,
      );
    }
    log('done: every encrypted value is under the current key; previous keys may now be retired');
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
