/**
 * Hot reads without the ORM's per-query machinery. MikroORM builds every query through knex, logs it, hydrates a
 * managed entity and tracks it in an identity map: about a third of the CPU of a `GET /customers/:id` (profile in
 * docs/benchmarks.md). A read that only presents a row needs none of that. `findOneRow` runs one named (prepared
 * once per connection) statement on a pooled connection and maps the row to the entity's property names from its
 * metadata, so the result reads like the entity the presenters already take — but it is a plain object, not
 * managed: never flush it. Inside a transaction it is em.findOne (the transaction owns its connection).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { JsonType, ReferenceKind, type EntityMetadata, type EntitySchema } from '@mikro-orm/core';

interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Record<string, unknown>[] }>;
}
interface KnexClient {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<void>;
}

/** Column types the pg driver already returns as MikroORM hydrates them (not bigint or numeric: pg gives strings). */
const PLAIN_COLUMN = /^(varchar|text|jsonb?|timestamptz|boolean|integer|int|int4|smallint|int2)\b/;

interface Statement {
  name: string;
  text: string;
  /** MikroORM's pg connection returns timestamps as text (PostgreSqlConnection's type overrides); entities hold Dates. */
  dates: string[];
}
const statements = new Map<string, Statement>();

function statementOf(meta: EntityMetadata, keys: string[]): Statement {
  const cacheKey = `${meta.className}:${keys.join(',')}`;
  const cached = statements.get(cacheKey);
  if (cached) return cached;
  const columns = meta.props.map((prop) => {
    const plain =
      prop.kind === ReferenceKind.SCALAR &&
      prop.columnTypes.length === 1 &&
      PLAIN_COLUMN.test(prop.columnTypes[0]) &&
      (!prop.customType || prop.customType instanceof JsonType);
    if (!plain) {
      throw new Error(`findOneRow: ${meta.className}.${prop.name} (${prop.type}) needs ORM hydration`);
    }
    return `"${prop.fieldNames[0]}" as "${prop.name}"`;
  });
  const conditions = keys.map((key, index) => {
    const prop = meta.properties[key];
    if (!prop) throw new Error(`findOneRow: ${meta.className} has no property ${key}`);
    return `"${prop.fieldNames[0]}" = $${index + 1}`;
  });
  const statement = {
    name: `find_one_${statements.size}`,
    text: `select ${columns.join(', ')} from "${meta.tableName}" where ${conditions.join(' and ')} limit 1`,
    dates: meta.props.filter((prop) => prop.columnTypes[0].startsWith('timestamptz')).map((prop) => prop.name),
  };
  statements.set(cacheKey, statement);
  return statement;
}

export async function findOneRow<T extends object>(
  em: EntityManager,
  schema: EntitySchema<T>,
  where: Partial<Record<keyof T & string, string>>,
): Promise<T | null> {
  if (em.isInTransaction()) return em.findOne(schema, where as never);
  const keys = Object.keys(where).sort();
  const statement = statementOf(em.getMetadata().get(schema.meta.className), keys);
  const knex = em.getConnection().getKnex();
  const client = knex.client as KnexClient;
  const values = keys.map((key) => where[key as keyof T & string]);
  const connection = await client.acquireConnection();
  try {
    // Announced like every knex query, so whatever listens for queries (tracing, the round-trip tests) sees it.
    knex.emit('query', { method: 'select', sql: statement.text, bindings: values });
    const { name, text } = statement;
    const { rows } = await connection.query({ name, text, values });
    const row = rows[0];
    if (!row) return null;
    for (const date of statement.dates) if (row[date] !== null) row[date] = new Date(row[date] as string);
    return row as T;
  } finally {
    await client.releaseConnection(connection);
  }
}
