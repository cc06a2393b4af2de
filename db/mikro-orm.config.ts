import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export function ormConfig(databaseUrl: string, options: { poolMax?: number } = {}) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, silent: true },
    // Every request and activity forks its own EntityManager; the global one must never be used.
    allowGlobalContext: false,
    discovery: { disableDynamicFileAccess: true },
    pool: { min: 0, max: options.poolMax ?? 10 },
    // Bound values stay out of a failed query's error message. (On PostgreSQL knex has already turned `?` into `$n`
    // when it formats the message, so this alone changes little; the values MikroORM inlines into the SQL text and
    // PostgreSQL's `detail` are cut out in db/orm.ts.)
    driverOptions: { compileSqlOnError: false },
    // Timestamps are always UTC; 'timestamptz' values come back as Date objects.
    forceUtcTimezone: true,
  });
}
