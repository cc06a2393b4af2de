/**
 * Database unavailable: a request that cannot reach PostgreSQL (connection refused or cut, the server terminating
 * the connection) answers the documented 503 external_service_error DATABASE_UNAVAILABLE with Retry-After — never
 * a 500 — and changes nothing. Each test runs a second API that reaches the shared PostgreSQL through a TCP proxy
 * (closing the proxy refuses and cuts its connections) or has its backend terminated by pg_terminate_backend.
 */
import { expect } from 'chai';
import { startApi, type RunningApi } from '../../api/server';
import { api, type ApiResponse } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { stack } from '../helpers/stack';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { expectError } from '../helpers/envelope';

function expectDatabaseUnavailable(res: ApiResponse): void {
  expectError(res, 503, 'external_service_error', 'DATABASE_UNAVAILABLE');
  expect(res.headers.get('retry-after'), 'Retry-After').to.match(/^[1-9]\d*$/);
}

describe('When the database is unavailable', () => {
  let proxy: TcpProxy;
  let app: RunningApi;
  let tenant: Tenant;

  beforeEach(async () => {
    const { config, databasePort } = stack();
    tenant = await createTenant();
    proxy = await startTcpProxy(databasePort);
    const databaseUrl = new URL(config.databaseUrl);
    databaseUrl.port = String(proxy.port);
    app = await startApi({ ...config, databaseUrl: databaseUrl.toString() }, 0);
  });

  afterEach(async () => {
    await proxy?.close();
    await app?.stop();
  });

  it('a request whose connection is refused or cut answers 503 DATABASE_UNAVAILABLE with Retry-After and stores nothing', async () => {
    const key = tenant.merchant_secret_key;
    const reachable = await api.post('/customers', { key, body: customerInput(), baseUrl: app.url });
    expect(reachable.status, reachable.text).to.equal(201);

    // Cuts the pooled connections and refuses new ones, as a stopped PostgreSQL does.
    await proxy.close();
    const refused = customerInput();
    const created = await api.post('/customers', { key, body: refused, baseUrl: app.url });
    const listed = await api.get('/customers', { key, baseUrl: app.url });

    expectDatabaseUnavailable(created);
    expectDatabaseUnavailable(listed);
    expect(await rows('select id from customers where email = ?', [refused.email])).to.deep.equal([]);
    // The same request succeeds once the database is back (here: through the stack's own API).
    const retried = await api.post('/customers', { key, body: refused });
    expect(retried.status, retried.text).to.equal(201);
  });

  it('a request whose backend is terminated mid-statement (57P01, as in a PostgreSQL restart) answers 503 and changes nothing', async function () {
    this.timeout(60_000);
    const key = tenant.merchant_secret_key;
    const created = await api.post('/customers', { key, body: customerInput({ name: 'Before' }) });
    expect(created.status, created.text).to.equal(201);
    const customerId = created.body.data.id as string;

    // A lock held outside the API parks the update inside its statement, where the termination reaches it.
    const knex = stack().orm.em.getConnection().getKnex();
    const response = await knex.transaction(async (trx) => {
      await trx.raw('select id from customers where id = ? for update', [customerId]);
      const [{ pid: lockHolder }] = (await trx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows;
      const update = api.patch(`/customers/${customerId}`, { key, body: { name: 'After' }, baseUrl: app.url });
      let terminated = false;
      for (let i = 0; i < 400 && !terminated; i += 1) {
        const waiting = await rows(
          `select pid from pg_stat_activity
            where wait_event_type = 'Lock' and pid <> ? and datname = current_database() and query ilike '%customers%'`,
          [lockHolder],
        );
        for (const { pid } of waiting) await rows('select pg_terminate_backend(?)', [pid]);
        terminated = waiting.length > 0;
        if (!terminated) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(terminated, 'the update never waited on the lock').to.equal(true);
      return update;
    });

    expectDatabaseUnavailable(response);
    const [stored] = await rows('select name from customers where id = ?', [customerId]);
    expect(stored.name).to.equal('Before');
  });
});
