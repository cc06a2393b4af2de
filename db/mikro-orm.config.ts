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
    // Timestamps are always UTC; 'timestamptz' values come back as Date objects.
    forceUtcTimezone: true,
  });
}
