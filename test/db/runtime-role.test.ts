/**
 * The app connects to PostgreSQL as a runtime role that reads and writes rows and nothing else; only migrations, run
 * as the owner role, change the schema. A SQL injection or a leaked DATABASE_URL then cannot drop, alter or create
 * tables. The test stack runs its API and worker as such a role (as `npm start` and docker-compose.yml do), so every
 * integration test is also a test that the app works without DDL.
 */
import { expect } from 'chai';
import { openOrm, type Orm } from '../../db/orm';
import { api } from '../helpers/http';
import { createTenant, customerInput } from '../helpers/factories';
import { stack } from '../helpers/stack';

describe('The runtime database role', () => {
  let runtime: Orm;
  before(async () => {
    runtime = await openOrm(stack().config.databaseUrl);
  });
  after(async () => {
    await runtime.close();
  });

  async function refusal(sql: string): Promise<string> {
    try {
      await runtime.em.fork().execute(sql);
    } catch (error) {
      return (error as Error).message;
    }
    return `${sql} was allowed`;
  }

  it('is neither a superuser nor the owner of any table', async () => {
    const [role] = await runtime.em
      .fork()
      .execute<{ rolsuper: boolean; rolcreaterole: boolean; rolcreatedb: boolean; owned: string }[]>(
        `select rolsuper, rolcreaterole, rolcreatedb,
                (select count(*) from pg_tables where schemaname = 'public' and tableowner = current_user) as owned
           from pg_roles where rolname = current_user`,
      );
    expect(role).to.deep.equal({ rolsuper: false, rolcreaterole: false, rolcreatedb: false, owned: '0' });
  });

  it('cannot CREATE, ALTER, DROP or TRUNCATE tables', async () => {
    expect(await refusal('create table runtime_role_probe (id int)')).to.match(/permission denied/);
    expect(await refusal('alter table customers add column runtime_role_probe int')).to.match(/must be owner/);
    expect(await refusal('drop table customers')).to.match(/must be owner/);
    expect(await refusal('truncate customers')).to.match(/permission denied/);
    expect(await refusal('create index runtime_role_probe on customers (id)')).to.match(/must be owner/);
  });

  it('the app works with it: a write through the API is stored', async () => {
    const tenant = await createTenant();
    const res = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    expect(res.status, res.text).to.equal(201);
    const id = (res.body as { data: { id: string } }).data.id;
    expect(id).to.match(/^cust_/);
    const rows = await runtime.em.fork().execute<{ id: string }[]>('select id from customers where id = ?', [id]);
    expect(rows).to.deep.equal([{ id }]);
  });
});
