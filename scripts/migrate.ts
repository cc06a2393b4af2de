/**
 * `npm run migrate`: applies pending migrations as the owner role, MIGRATION_DATABASE_URL (else DATABASE_URL, else the
 * embedded local database's superuser). The app itself connects as a role without DDL rights (db/runtime-role.ts).
 */
import { migrate } from '../db/orm';
import { withLocalOrm } from './lib/local-stack';
import { log } from './lib/paths';

async function main(): Promise<void> {
  await withLocalOrm(migrate, 'owner');
  log('migrations applied');
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
