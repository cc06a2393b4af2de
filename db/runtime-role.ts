/**
 * The role the app runs as: it reads and writes rows (SELECT, INSERT, UPDATE, DELETE on every table; USAGE and
 * SELECT on sequences) and can change no schema. Only migrations, run as the owner role, create, alter or drop; so a
 * SQL injection or a leaked DATABASE_URL cannot. Run as the owner (the role migrations run as) on the app's database:
 * its default privileges grant the runtime role every table later migrations create. Idempotent, so `npm start` and
 * the test stack run it on every start. docker-compose.yml's postgres does the same in deploy/postgres/10-app-role.sh.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Names and passwords go into utility statements, which take no bound parameters: letters, digits, underscores. */
const SAFE = /^[A-Za-z0-9_]+$/;

export async function grantRuntimeRole(em: EntityManager, role: string, password: string): Promise<void> {
  if (!SAFE.test(role) || !SAFE.test(password)) throw new Error('runtime role and password: letters, digits, _ only');
  const [{ owner, database }] = await em.execute<{ owner: string; database: string }[]>(
    'select current_user as owner, current_database() as database',
  );
  const exists = await em.execute('select 1 from pg_roles where rolname = ?', [role]);
  await em.execute(`${exists.length ? 'alter' : 'create'} role "${role}" login password '${password}'`);
  for (const statement of [
    `grant connect on database "${database}" to "${role}"`,
    `grant usage on schema public to "${role}"`,
    `grant select, insert, update, delete on all tables in schema public to "${role}"`,
    `grant usage, select on all sequences in schema public to "${role}"`,
    `alter default privileges for role "${owner}" in schema public grant select, insert, update, delete on tables to "${role}"`,
    `alter default privileges for role "${owner}" in schema public grant usage, select on sequences to "${role}"`,
  ]) {
    await em.execute(statement);
  }
}

/** The owner's connection URL with the runtime role's credentials instead (same server and database). */
export function runtimeRoleUrl(ownerUrl: string, role: string, password: string): string {
  const url = new URL(ownerUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}
