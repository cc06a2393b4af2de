/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded local database). */
import { migrate } from '../db/orm';
import { withLocalOrm } from './lib/local-stack';
import { log } from './lib/paths';

async function main(): Promise<void> {
  await withLocalOrm(migrate);
  log('migrations applied');
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
