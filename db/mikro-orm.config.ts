import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export interface PoolOptions {
  poolMax?: number;
  /** PostgreSQL session settings for every pooled connection (the API sets them; migrations and the worker do not). */
  statementTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
}

export function ormConfig(databaseUrl: string, options: PoolOptions = {}) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, silent: true },
    // Every request and activity forks its own EntityManager; the global one must never be used.
    allowGlobalContext: false,
    discovery: { disableDynamicFileAccess: true },
    pool: { min: 0, max: options.poolMax ?? 10 },
    // Sent by node-postgres as startup parameters, so they hold from the first statement of each connection.
    // compileSqlOnError: bound values stay out of a failed query's error message. (On PostgreSQL knex has already
    // turned `?` into `$n` when it formats the message, so this alone changes little; the values MikroORM inlines
    // into the SQL text and PostgreSQL's `detail` are cut out in db/orm.ts.)
    driverOptions: {
      compileSqlOnError: false,
      connection: {
        ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
        ...(options.idleInTransactionTimeoutMs
          ? { idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs }
          : {}),
      },
    },
    // Timestamps are always UTC; 'timestamptz' values come back as Date objects.
    forceUtcTimezone: true,
  });
}
