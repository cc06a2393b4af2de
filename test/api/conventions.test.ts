/** Document 1's service-wide conventions: request ids, the wrapped and error envelopes, pagination, unmatched routes. */
import { expect } from 'chai';
import { api, request } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import {
  expectError,
  expectFieldErrors,
  expectRecentTimestamp,
  expectWrapped,
  ISO_UTC_MS,
  requestIdOf,
} from '../helpers/envelope';

async function createCustomer(tenant: Tenant): Promise<string> {
  const res = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
  return expectWrapped(res, 201).id;
}

describe('Request ids', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  it('puts a req_ id in the X-Request-Id header of every response, whatever its shape', async () => {
    const key = tenant.merchant_secret_key;
    const customerId = await createCustomer(tenant);
    const responses = await Promise.all([
      api.get('/customers', { key }), // wrapped list
      api.get(`/customers/${customerId}`, { key }), // wrapped resource
      api.get('/health/live'), // bare
      api.get('/health'), // bare, outside /api/v1
      api.get('/openapi.json'), // bare document
      api.get('/no-such-route'), // error
      api.get('/customers'), // error without a key
      request('PUT', '/customers', { key }), // 405
      request('OPTIONS', '/customers', { key }), // empty body
    ]);
    responses.push(await api.delete(`/customers/${customerId}`, { key })); // 204
    expect(responses.at(-1)!.status).to.equal(204);
    for (const res of responses) requestIdOf(res);
  });

  it('repeats the X-Request-Id header as request_id in wrapped and error bodies', async () => {
    const success = await api.get('/customers', { key: tenant.merchant_secret_key });
    expect(success.body.request_id).to.equal(requestIdOf(success));
    const failure = await api.get('/no-such-route');
    expect(failure.body.error.request_id).to.equal(requestIdOf(failure));
  });

  it('gives every request its own id', async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? api.get('/health/live') : api.get('/no-such-route'))),
    );
    const ids = responses.map(requestIdOf);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const res of responses.filter((r) => r.status === 404))
      expect(res.body.error.request_id).to.equal(requestIdOf(res));
  });

  it('never adopts a request id sent by the client', async () => {
    const res = await api.get('/no-such-route', { headers: { 'X-Request-Id': 'req_chosenByTheClient' } });
    expect(requestIdOf(res)).to.not.equal('req_chosenByTheClient');
    expect(res.body.error.request_id).to.equal(requestIdOf(res));
  });
});

describe('Wrapped success envelope', () => {
  let tenant: Tenant;
  let created: string[];
  before(async () => {
    tenant = await createTenant();
    created = [];
    for (let i = 0; i < 3; i += 1) created.push(await createCustomer(tenant));
  });

  it('wraps a single resource as exactly {success, data, request_id, timestamp}, without meta', async () => {
    const create = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    const data = expectWrapped(create, 201);
    expect(data).to.be.an('object').and.not.an('array');
    const get = await api.get(`/customers/${created[0]}`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(get, 200).id).to.equal(created[0]);
    await api.delete(`/customers/${data.id}`, { key: tenant.merchant_secret_key });
  });

  it('wraps a list as {success, data: [...], meta: {pagination}, request_id, timestamp}', async () => {
    const res = await api.get('/customers', { key: tenant.merchant_secret_key });
    const data = expectWrapped(res, 200, { list: true });
    expect(data).to.have.length(3);
  });

  it('reports page, limit, total, total_pages, has_next and has_prev correctly on every page', async () => {
    const key = tenant.merchant_secret_key;
    const page1 = await api.get('/customers', { key, query: { limit: 2, page: 1 } });
    expect(expectWrapped(page1, 200, { list: true })).to.have.length(2);
    expect(page1.body.meta.pagination).to.deep.equal({
      page: 1,
      limit: 2,
      total: 3,
      total_pages: 2,
      has_next: true,
      has_prev: false,
    });

    const page2 = await api.get('/customers', { key, query: { limit: 2, page: 2 } });
    expect(expectWrapped(page2, 200, { list: true })).to.have.length(1);
    expect(page2.body.meta.pagination).to.deep.equal({
      page: 2,
      limit: 2,
      total: 3,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });

    const ids = [...page1.body.data, ...page2.body.data].map((customer: { id: string }) => customer.id);
    expect(ids).to.have.members(created);

    const beyond = await api.get('/customers', { key, query: { limit: 2, page: 3 } });
    expect(expectWrapped(beyond, 200, { list: true })).to.deep.equal([]);
    expect(beyond.body.meta.pagination).to.deep.equal({
      page: 3,
      limit: 2,
      total: 3,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
  });

  it('reports total 0, total_pages 0 and no neighbours for an empty list', async () => {
    const empty = await createTenant();
    const res = await api.get('/customers', { key: empty.merchant_secret_key });
    expect(expectWrapped(res, 200, { list: true })).to.deep.equal([]);
    expect(res.body.meta.pagination).to.deep.equal({
      page: 1,
      limit: 20,
      total: 0,
      total_pages: 0,
      has_next: false,
      has_prev: false,
    });
  });

  it('defaults page to 1 and limit to 20', async () => {
    const res = await api.get('/customers', { key: tenant.merchant_secret_key });
    expect(res.body.meta.pagination).to.include({ page: 1, limit: 20, total: 3, total_pages: 1 });
  });

  it('writes timestamps as ISO 8601 UTC with milliseconds', async () => {
    const res = await api.get(`/customers/${created[0]}`, { key: tenant.merchant_secret_key });
    expectRecentTimestamp(res.body.timestamp);
    expect(res.body.data.created_at).to.match(ISO_UTC_MS);
    expect(res.body.data.updated_at).to.match(ISO_UTC_MS);
  });
});

describe('Error envelope', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  it('is exactly {error: {type, code, message, request_id, timestamp, details?}}, with no success and no data', async () => {
    const res = await api.get('/no-such-route');
    const error = expectError(res, 404, 'not_found_error');
    expect(res.body).to.not.have.property('success');
    expect(res.body).to.not.have.property('data');
    expect(error).to.not.have.property('details');
    expect(error.timestamp).to.match(ISO_UTC_MS);
  });

  it('lists each missing body field in details as field → array of messages', async () => {
    const res = await api.post('/customers', { key: tenant.merchant_secret_key, body: {} });
    expectFieldErrors(res, ['email', 'name', 'phone', 'document_type', 'document_number', 'billing_address']);
  });

  it('names a nested field by its dotted path (billing_address.city too long)', async () => {
    const input = customerInput();
    const body = { ...input, billing_address: { ...(input.billing_address as object), city: 'x'.repeat(101) } };
    const res = await api.post('/customers', { key: tenant.merchant_secret_key, body });
    expectFieldErrors(res, ['billing_address.city']);
  });

  it('names an unknown body field, top-level or nested, in a 400', async () => {
    const key = tenant.merchant_secret_key;
    expectFieldErrors(await api.post('/customers', { key, body: customerInput({ nickname: 'Ada' }) }), ['nickname']);
    const input = customerInput();
    const nested = { ...input, billing_address: { ...(input.billing_address as object), planet: 'Earth' } };
    expectFieldErrors(await api.post('/customers', { key, body: nested }), ['billing_address.planet']);
  });
});

describe('Unmatched routes and methods', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  it('answers an unknown route with 404 not_found_error ROUTE_NOT_FOUND in the error envelope', async () => {
    for (const path of ['/api/v1/no-such-route', '/api/v1/customers/cust_x/nothing', '/api/v2/customers', '/api/']) {
      expectError(await api.get(path), 404, 'not_found_error', 'ROUTE_NOT_FOUND');
      expectError(
        await api.post(path, { key: tenant.merchant_secret_key, body: {} }),
        404,
        'not_found_error',
        'ROUTE_NOT_FOUND',
      );
    }
  });

  it('answers a wrong method on a known path with 405, an Allow header and the error envelope', async () => {
    const key = tenant.merchant_secret_key;
    const cases: Array<[string, string, string[]]> = [
      ['PUT', '/customers', ['GET', 'POST']],
      ['DELETE', '/customers', ['GET', 'POST']],
      ['POST', '/customers/cust_abc', ['GET', 'PATCH', 'DELETE']],
      ['POST', '/health/live', ['GET']],
    ];
    for (const [method, path, allowed] of cases) {
      const res = await request(method, path, { key });
      expectError(res, 405, 'bad_request_error', 'METHOD_NOT_ALLOWED');
      const allow = (res.headers.get('allow') ?? '').split(/\s*,\s*/);
      expect(allow, `${method} ${path}`).to.include.members(allowed);
      expect(allow).to.not.include(method);
    }
  });
});

describe('Path identifiers', () => {
  it('answers a malformed id in the path with 404, as for an id that does not exist', async () => {
    const { merchant_secret_key: key } = await createTenant();
    expectError(await api.get('/customers/not-an-id', { key }), 404, 'not_found_error');
    expectError(await api.get('/customers/cust_', { key }), 404, 'not_found_error');
    expectError(await api.get(`/customers/cust_${'a'.repeat(200)}`, { key }), 404, 'not_found_error');
    expectError(await api.patch('/customers/not-an-id', { key, body: { name: 'x' } }), 404, 'not_found_error');
    expectError(await api.delete('/customers/not-an-id', { key }), 404, 'not_found_error');
  });
});
