/**
 * Authentication without a query: each API process caches keys and merchant ownership, and a change
 * in the database empties the cache of every process at once (a trigger NOTIFYs switchyard_auth). The TTL
 * (AUTH_CACHE_TTL_MS) is far longer than these tests wait, so only the notification can make them pass.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput, keyWithScopes, type Tenant } from '../helpers/factories';
import { createMerchant, rows } from '../helpers/merchants';
import { createCustomer } from '../helpers/vault';
import { stack } from '../helpers/stack';
import { startApi, type RunningApi } from '../../api/server';
import { AUTH_CACHE_TTL_MS } from '../../api/http/auth';
import { hashSecret } from '../../domain/platform/crypto';
import { statementsOf } from '../helpers/statements';

/** Repeats the request until it gets `status` or `withinMs` passes; returns the last status. */
async function statusWithin(request: () => Promise<{ status: number }>, status: number, withinMs: number) {
  const deadline = Date.now() + withinMs;
  let last = (await request()).status;
  while (last !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = (await request()).status;
  }
  return last;
}

describe('API-key and merchant cache: invalidated across API processes on change', () => {
  const WAIT_MS = 3_000;
  let second: RunningApi;
  let tenant: Tenant;

  before(async () => {
    expect(AUTH_CACHE_TTL_MS).to.be.greaterThan(2 * WAIT_MS);
    second = await startApi(stack().config, 0);
    tenant = await createTenant();
  });
  after(async () => {
    await second?.stop();
  });

  it('a key revoked in the database is refused by every API process, long before the cache TTL', async () => {
    const key = await keyWithScopes(tenant, ['customers:read']);
    const get = (baseUrl: string) => () => api.get('/customers', { key, baseUrl });
    // Both processes have the key cached now.
    expect((await get(stack().url)()).status).to.equal(200);
    expect((await get(second.url)()).status).to.equal(200);
    expect((await get(second.url)()).status).to.equal(200);

    await rows(`update api_keys set status = 'revoked', revoked_at = now() where secret_hash = ?`, [hashSecret(key)]);

    expect(await statusWithin(get(second.url), 401, WAIT_MS)).to.equal(401);
    expect(await statusWithin(get(stack().url), 401, WAIT_MS)).to.equal(401);
  });

  it('a merchant deleted through one API process is no longer reachable with an organization key on another', async () => {
    const merchant = await createMerchant(tenant);
    const key = tenant.organization_secret_key;
    const list = () => api.get('/events', { key, query: { merchant_id: merchant.id }, baseUrl: second.url });
    expect((await list()).status).to.equal(200);
    expect((await list()).status).to.equal(200);

    const deleted = await api.delete(`/merchants/${merchant.id}`, { key });
    expect(deleted.status, deleted.text).to.equal(204);

    expect(await statusWithin(list, 403, WAIT_MS)).to.equal(403);
  });

  /**
   * The SQL statements of one request, sent after a first identical one cached the key and leased its budget; with
   * `emptyCache`, right after the auth cache was emptied (as any api_keys or merchants change empties it in every
   * process). A rate-limit window's first request leases the key's budget (one upsert per block, rate-limit.ts):
   * that is not the request's own cost, and a measured request that happens to open a new window must not fail
   * the count, so it is left out.
   */
  async function statementsOfRequest(
    request: () => Promise<{ status: number }>,
    status: number,
    { emptyCache = false } = {},
  ): Promise<string[]> {
    expect((await request()).status).to.equal(status);
    if (emptyCache) second.deps.authCache.invalidate();
    const { result, sql } = await statementsOf(second.deps.orm.em, request);
    expect(result.status).to.equal(status);
    return sql.filter((statement) => !/rate_limit_counters/.test(statement));
  }
  const statementsAfterCacheEmptied = (request: () => Promise<{ status: number }>, status: number) =>
    statementsOfRequest(request, status, { emptyCache: true });

  it('GET /customers/:id costs one database round trip once the key is cached and its budget leased', async () => {
    const customerId = await createCustomer(tenant);
    const key = tenant.merchant_secret_key;
    const queries = await statementsOfRequest(
      () => api.get(`/customers/${customerId}`, { key, baseUrl: second.url }),
      200,
    );
    expect(queries).to.have.length(1);
    expect(queries[0]).to.match(/from "customers"/);
  });

  it('a key read after the cache emptied is one round trip: the key, its last use and its merchant status together', async () => {
    const customerId = await createCustomer(tenant);
    const key = tenant.merchant_secret_key;
    const read = () => api.get(`/customers/${customerId}`, { key, baseUrl: second.url });
    expect(await statementsAfterCacheEmptied(read, 200)).to.have.length(2);
    // A write checks the merchant's status: it came with the key, so no statement reads merchants on its own.
    const create = () => api.post('/customers', { key, body: customerInput(), baseUrl: second.url });
    const queries = await statementsAfterCacheEmptied(create, 201);
    expect(queries.filter((sql) => /from "?merchants"?\b/.test(sql))).to.have.length(0);
    expect(queries.filter((sql) => /\bapi_keys\b/.test(sql))).to.have.length(1);
  });

  it("an organization key's merchant is read once after the cache emptied: ownership and status together", async () => {
    const customerId = await createCustomer(tenant);
    const key = tenant.organization_secret_key;
    const remove = () =>
      api.delete(`/customers/${customerId}`, { key, query: { merchant_id: tenant.merchant_id }, baseUrl: second.url });
    // The first request deletes; the second is the same request answered 404 (nothing left), after the same checks.
    expect((await remove()).status).to.equal(204);
    const queries = await statementsAfterCacheEmptied(remove, 404);
    expect(queries.filter((sql) => /from "?merchants"?\b/.test(sql))).to.have.length(1);
  });

  it('an idempotent replay costs one database round trip (the stored answer is read, the key not claimed)', async () => {
    const body = customerInput();
    const key = tenant.merchant_secret_key;
    const headers = { 'idempotency-key': `replay-${Date.now()}` };
    const create = () => api.post('/customers', { key, body, headers, baseUrl: second.url });
    expect((await create()).status).to.equal(201);
    const queries = await statementsOfRequest(create, 200);
    expect(queries).to.have.length(1);
    expect(queries[0]).to.match(/from idempotency_keys/);
  });
});
