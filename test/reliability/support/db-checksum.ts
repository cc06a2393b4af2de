/**
 * A fingerprint of the database's tenant data: one md5 per table over all its rows (order-independent), so a
 * sweep can prove that a refused request changed nothing. Bookkeeping that every request may touch is left out.
 */
import { stack } from '../../helpers/stack';

/** Written by any authenticated request or by the harness, never tenant data a foreign call could change. */
const BOOKKEEPING = new Set(['rate_limit_counters', 'idempotency_keys', 'mikro_orm_migrations']);

let tables: string[] | undefined;

/** Every table of the application's schema. */
export async function publicTables(): Promise<string[]> {
  tables ??= (
    await stack()
      .orm.em.fork()
      .execute<Array<{ table_name: string }>>(
        "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name",
      )
  ).map((row) => row.table_name);
  return tables;
}

const tenantTables = async () => (await publicTables()).filter((name) => !BOOKKEEPING.has(name));

let tenantColumns: Map<string, 'merchant_id' | 'organization_id'> | undefined;

/** The tenant column of each table that has one (merchant_id first). */
async function tenantColumnOf(): Promise<Map<string, 'merchant_id' | 'organization_id'>> {
  if (tenantColumns) return tenantColumns;
  const rows = await stack()
    .orm.em.fork()
    .execute<Array<{ table_name: string; column_name: 'merchant_id' | 'organization_id' }>>(
      "select table_name, column_name from information_schema.columns where table_schema = 'public' and column_name in ('merchant_id', 'organization_id') order by column_name",
    );
  tenantColumns = new Map();
  for (const row of rows) if (!tenantColumns.has(row.table_name)) tenantColumns.set(row.table_name, row.column_name);
  return tenantColumns;
}

/** Whose rows count: tables with a tenant column are narrowed to these tenants (other tests' tenants keep working). */
export interface Scope {
  merchantIds: string[];
  organizationIds: string[];
}

export type Checksum = Map<string, string>;

export async function checksum(scope?: Scope): Promise<Checksum> {
  const names = await tenantTables();
  const columns = await tenantColumnOf();
  const quote = (ids: string[]) => ids.map((id) => `'${id.replace(/'/g, "''")}'`).join(', ');
  const where = (name: string) => {
    const column = columns.get(name);
    if (!scope || !column) return '';
    const ids = column === 'merchant_id' ? scope.merchantIds : scope.organizationIds;
    return ` where t.${column} in (${quote(ids)})`;
  };
  const select = names
    .map(
      (name) =>
        `select '${name}' as name, coalesce(md5(string_agg(md5(t::text), '' order by md5(t::text))), '') as sum from "${name}" t${where(name)}`,
    )
    .join(' union all ');
  const rows = await stack().orm.em.fork().execute<Array<{ name: string; sum: string }>>(select);
  return new Map(rows.map((row) => [row.name, row.sum]));
}

/** The tables whose fingerprint differs. */
export function changedTables(before: Checksum, after: Checksum): string[] {
  return [...after.keys()].filter((name) => before.get(name) !== after.get(name));
}

/** Waits until background work (outbox, deliveries, workflows) has settled: two equal fingerprints in a row. */
export async function settled(scope?: Scope, timeoutMs = 60_000): Promise<Checksum> {
  const deadline = Date.now() + timeoutMs;
  let previous = await checksum(scope);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const current = await checksum(scope);
    const changed = changedTables(previous, current);
    if (changed.length === 0) return current;
    if (Date.now() > deadline) throw new Error(`the database did not settle; still changing: ${changed.join(', ')}`);
    previous = current;
  }
}
