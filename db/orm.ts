import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig, type PoolOptions } from './mikro-orm.config';

export type Orm = MikroORM;

type DatabaseError = Error & Record<string, unknown>;

interface QueryErrorEmitter {
  on(event: 'query-error', listener: (error: DatabaseError, query: { sql?: string }) => void): void;
}

/** PostgreSQL error fields that quote row values: "Key (email)=(ana@example.com) already exists", "Failing row contains (…)". */
const VALUE_BEARING_FIELDS = ['detail', 'where', 'internalQuery'];

/**
 * A failed query's error leaves the database layer without the row values in it; it reaches logs and Temporal
 * failure payloads. MikroORM inlines the bound values into the SQL text before knex runs it, and knex prefixes
 * the error message with that SQL ("insert into customers … values ('cus_…', 'ana@example.com') - duplicate key
 * …"), so the message is cut back to PostgreSQL's own (which names the constraint, not the row); MikroORM would
 * then append `detail` to the message, so the value-quoting fields go. knex emits 'query-error' synchronously,
 * before the error is thrown on to MikroORM.
 */
function keepValuesOutOfErrors(orm: Orm): void {
  const client = orm.em.getConnection().getKnex().client as unknown as QueryErrorEmitter;
  client.on('query-error', (error, query) => {
    const prefix = `${query.sql ?? ''} - `;
    if (query.sql && error.message.startsWith(prefix)) error.message = error.message.slice(prefix.length);
    for (const field of VALUE_BEARING_FIELDS) delete error[field];
  });
}

export async function openOrm(databaseUrl: string, options: PoolOptions = {}): Promise<Orm> {
  const orm = await MikroORM.init(ormConfig(databaseUrl, options));
  keepValuesOutOfErrors(orm);
  return orm;
}

export async function migrate(orm: Orm): Promise<void> {
  await orm.getMigrator().up();
}
