/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded local database). */
import { migrate, openOrm } from '../db/orm';
import { localDatabase } from './lib/local-stack';
import { log } from './lib/paths';

async function main(): Promise<void> {
  const database = await localDatabase();
  try {
    const orm = await openOrm(database.url);
    try {
      await migrate(orm);
      log('migrations applied');
    } finally {
      await orm.close();
    }
  } finally {
    await database.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
