/**
 * "One way to write" (docs/architecture.md) as checkers over source files: raw SQL is run only under db/, every
 * table the migrations create has one owner in db/table-owners.ts, and a table is written with raw SQL only by its
 * owner.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LAYERS, sourceFiles } from './import-graph';
import { TABLE_OWNERS } from '../../db/table-owners';

/** Comments out of the way (a comment naming `em.execute` runs nothing); strings and templates stay. */
export function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/^\s*\/\/.*$/gm, '');
}

/**
 * A call that runs SQL text: MikroORM's `em.execute` / `connection.execute` (also through `fork()` or a
 * transaction's `tx`, with a type argument or not), knex's `raw` and `getKnex`, and a pooled connection of the
 * driver. A Temporal client's `workflow.execute` starts a workflow and runs no SQL.
 */
const RAW_SQL_CALL = /(?<!\bworkflow\s*)\.execute\s*[<(]|\.(?:raw|getKnex|acquireConnection)\s*\(/g;

/** The raw SQL calls of a piece of source, as `line: the call`. */
export function rawSqlCalls(source: string): string[] {
  const code = withoutComments(source);
  return [...code.matchAll(RAW_SQL_CALL)].map((match) => {
    const line = code.slice(0, match.index).split('\n').length;
    const text = code.split('\n')[line - 1].trim();
    return `${line}: ${text}`;
  });
}

/** Raw SQL is run only under db/ (in the table's repository): every call elsewhere in the server, by file and line. */
export function rawSqlOutsideDb(root: string): string[] {
  return LAYERS.filter((layer) => layer !== 'db')
    .flatMap((layer) => sourceFiles(root, layer))
    .flatMap((file) => rawSqlCalls(read(root, file)).map((call) => `${file}:${call}`));
}

/** insert/delete, and an update whose table may carry an alias (`update checkout_sessions cs set`, `… as cs set`). */
const RAW_WRITE =
  /\b(?:insert\s+into|delete\s+from)\s+"?([a-z_]+)"?|\bupdate\s+"?([a-z_]+)"?(?:\s+(?:as\s+)?(?!set\b)[a-z_]+)?\s+set\b/gi;

/** Tables a piece of source writes with raw SQL. */
export function rawWriteTables(source: string): string[] {
  return [...withoutComments(source).matchAll(RAW_WRITE)].map((match) => (match[1] ?? match[2]).toLowerCase());
}

/** Tables the migrations create (`create [unlogged] table [if not exists] name`). */
export function migrationTables(root: string): string[] {
  const tables = sourceFiles(root, 'db/migrations').flatMap((file) =>
    [
      ...withoutComments(read(root, file)).matchAll(
        /\bcreate\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?"?([a-z_]+)"?/gi,
      ),
    ].map((match) => match[1].toLowerCase()),
  );
  return [...new Set(tables)].sort();
}

/**
 * What is wrong with the owner map against the migrations: a table no entry names, an entry for no table, an owner
 * that is not a file or folder of the repository.
 */
export function ownerMapProblems(root: string, owners: Readonly<Record<string, string>> = TABLE_OWNERS): string[] {
  const tables = migrationTables(root);
  return [
    ...tables.filter((table) => !(table in owners)).map((table) => `${table}: created by a migration, has no owner`),
    ...Object.keys(owners)
      .filter((table) => !tables.includes(table))
      .map((table) => `${table}: no migration creates it`),
    ...Object.entries(owners)
      .filter(([, owner]) => !fs.existsSync(path.join(root, owner)))
      .map(([table, owner]) => `${table}: its owner ${owner} does not exist`),
  ];
}

/**
 * The raw writes of `file` to tables it does not own, as `file → table (owner: …)`: from a db/ file, any table it
 * does not own; from anywhere else in the server, a table whose owner is a repository. (Raw SQL outside db/ on a
 * table no repository owns yet is rawSqlOutsideDb's to report.)
 */
export function rawWritesNotOwned(
  file: string,
  source: string,
  owners: Readonly<Record<string, string>> = TABLE_OWNERS,
): string[] {
  return rawWriteTables(source)
    .filter((table) => owners[table] !== file)
    .filter((table) => file.startsWith('db/') || owners[table]?.startsWith('db/repositories/'))
    .map((table) => `${file} → ${table} (owner: ${owners[table] ?? 'none'})`);
}

/** rawWritesNotOwned over every server file (migrations excepted: they create and seed every table). */
export function rawWritesByOthers(root: string): string[] {
  return LAYERS.flatMap((layer) => sourceFiles(root, layer))
    .filter((file) => !file.startsWith('db/migrations/'))
    .flatMap((file) => rawWritesNotOwned(file, read(root, file)));
}

const read = (root: string, file: string) => fs.readFileSync(path.join(root, file), 'utf8');
