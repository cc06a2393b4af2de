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

export type Checksum = Map<string, string>;

export async function checksum(): Promise<Checksum> {
  const names = await tenantTables();
  const select = names
    .map(
      (name) =>
        `select '${name}' as name, coalesce(md5(string_agg(md5(t::text), '' order by md5(t::text))), '') as sum from "${name}" t`,
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
export async function settled(timeoutMs = 60_000): Promise<Checksum> {
  const deadline = Date.now() + timeoutMs;
  let previous = await checksum();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const current = await checksum();
    const changed = changedTables(previous, current);
    if (changed.length === 0) return current;
    if (Date.now() > deadline) throw new Error(`the database did not settle; still changing: ${changed.join(', ')}`);
    previous = current;
  }
}
