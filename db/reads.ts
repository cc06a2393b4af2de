/**
 * Hot reads without the ORM's per-query machinery. MikroORM builds every query through knex, logs it, hydrates a
 * managed entity and tracks it in an identity map: about a third of the CPU of a `GET /customers/:id` (profile in
 * docs/benchmarks.md). A read that only presents rows needs none of that. `findOneRow` and `findRows` run one named
 * (prepared once per connection) statement on a pooled connection and map each row to the entity's property names
 * from its metadata, so the result reads like the entities the presenters already take — but plain objects, not
 * managed: never flush them. Inside a transaction they are the ORM's own reads, refreshed (the transaction owns its
 * connection).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  BigIntType,
  JsonType,
  ReferenceKind,
  type EntityMetadata,
  type EntityProperty,
  type EntitySchema,
} from '@mikro-orm/core';

interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Record<string, unknown>[] }>;
}
interface KnexClient {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<void>;
}

/** Column types the pg driver already returns as MikroORM hydrates them. */
const PLAIN_COLUMN = /^(varchar|text|uuid|jsonb?|boolean|integer|int|int4|smallint|int2)\b/;

type Convert = (value: unknown) => unknown;
/** MikroORM's pg connection returns timestamps as text (PostgreSqlConnection's type overrides); entities hold Dates. */
const toDate: Convert = (value) => new Date(value as string);
/** pg returns int8 as text; BigIntType('number') hydrates a number. */
const toNumber: Convert = (value) => Number(value);

/** How to turn this column's driver value into the ORM's: null = as is; throws for a column it cannot reproduce. */
function converterOf(meta: EntityMetadata, prop: EntityProperty): Convert | null {
  const column = prop.columnTypes.length === 1 ? prop.columnTypes[0] : '';
  if (prop.kind === ReferenceKind.SCALAR) {
    if (prop.customType instanceof BigIntType && prop.customType.mode === 'number') return toNumber;
    if (column.startsWith('timestamptz') && !prop.customType) return toDate;
    if (PLAIN_COLUMN.test(column) && (!prop.customType || prop.customType instanceof JsonType)) return null;
  }
  throw new Error(`db/reads: ${meta.className}.${prop.name} (${prop.type}) needs ORM hydration`);
}

interface Statement {
  name: string;
  text: string;
  converters: Array<[string, Convert]>;
}
const statements = new Map<string, Statement>();

function statementOf(meta: EntityMetadata, keys: string[], tail: string): Statement {
  const cacheKey = `${meta.className}:${keys.join(',')}:${tail}`;
  const cached = statements.get(cacheKey);
  if (cached) return cached;
  const converters: Array<[string, Convert]> = [];
  const columns = meta.props.map((prop) => {
    const convert = converterOf(meta, prop);
    if (convert) converters.push([prop.name, convert]);
    return `"${prop.fieldNames[0]}" as "${prop.name}"`;
  });
  const conditions = keys.map((key, index) => `"${columnOf(meta, key)}" = $${index + 1}`);
  const statement = {
    name: `db_reads_${statements.size}`,
    text: `select ${columns.join(', ')} from "${meta.tableName}" where ${conditions.join(' and ')} ${tail}`,
    converters,
  };
  statements.set(cacheKey, statement);
  return statement;
}

function columnOf(meta: EntityMetadata, key: string): string {
  const prop = meta.properties[key];
  if (!prop) throw new Error(`db/reads: ${meta.className} has no property ${key}`);
  return prop.fieldNames[0];
}

async function run<T>(
  em: EntityManager,
  schema: EntitySchema<T>,
  where: Partial<Record<keyof T & string, string>>,
  tail: (meta: EntityMetadata) => string,
): Promise<T[]> {
  const meta = em.getMetadata().get(schema.meta.className);
  const keys = Object.keys(where).sort();
  const statement = statementOf(meta, keys, tail(meta));
  const values = keys.map((key) => where[key as keyof T & string]);
  const rows = await runNamed(em, statement, values);
  for (const row of rows) {
    for (const [name, convert] of statement.converters) if (row[name] !== null) row[name] = convert(row[name]);
  }
  return rows as T[];
}

/** One named statement on a pooled connection (PostgreSQL plans it once per connection). */
async function runNamed(
  em: EntityManager,
  statement: { name: string; text: string },
  values: unknown[],
): Promise<Record<string, unknown>[]> {
  const knex = em.getConnection().getKnex();
  const client = knex.client as KnexClient;
  const connection = await client.acquireConnection();
  try {
    // Announced like every knex query, so whatever listens for queries (tracing, the round-trip tests) sees it.
    knex.emit('query', { method: 'select', sql: statement.text, bindings: values });
    return (await connection.query({ name: statement.name, text: statement.text, values })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** Each named read's SQL as written (`?`) and as sent (`$n`), converted once. */
const namedReads = new Map<string, { sql: string; statement: { name: string; text: string } }>();

/**
 * A hand-written hot read (SQL with `?` placeholders, none elsewhere in the text) as one named statement: no knex
 * query building, no per-query planning in PostgreSQL. Values come back as the driver returns them (timestamps as
 * text: MikroORM's type overrides). Inside a transaction it is the transaction's own query, through `em`.
 */
export async function readNamed<R extends object>(
  em: EntityManager,
  name: string,
  sql: string,
  values: unknown[],
): Promise<R[]> {
  if (em.isInTransaction()) return em.execute<R[]>(sql, values);
  let registered = namedReads.get(name);
  if (registered === undefined) {
    let position = 0;
    const text = sql.replace(/\?/g, () => `$${++position}`);
    namedReads.set(name, (registered = { sql, statement: { name: `db_named_${name}`, text } }));
  }
  if (registered.sql !== sql) throw new Error(`db/reads: ${name} names two statements`);
  return (await runNamed(em, registered.statement, values)) as R[];
}

/** The one row matching every condition (equality), or null. */
export async function findOneRow<T extends object>(
  em: EntityManager,
  schema: EntitySchema<T>,
  where: Partial<Record<keyof T & string, string>>,
): Promise<T | null> {
  if (em.isInTransaction()) return em.findOne(schema, where as never, { refresh: true });
  const [row] = await run(em, schema, where, () => 'limit 1');
  return row ?? null;
}

/** Every row matching every condition (equality), in ascending `orderBy`. */
export async function findRows<T extends object>(
  em: EntityManager,
  schema: EntitySchema<T>,
  where: Partial<Record<keyof T & string, string>>,
  orderBy: keyof T & string,
): Promise<T[]> {
  if (em.isInTransaction()) {
    return em.find(schema, where as never, { orderBy: { [orderBy]: 'asc' } as never, refresh: true });
  }
  return run(em, schema, where, (meta) => `order by "${columnOf(meta, orderBy)}" asc`);
}
