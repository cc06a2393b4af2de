/** Document 1's conventions for what a request may carry: JSON bodies, body limits, pagination query parameters. */
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { api, request, type ApiResponse } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectNoStackTrace, expectWrapped, requestIdOf } from '../helpers/envelope';
import { stack } from '../helpers/stack';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** fetch with a Buffer body (the http helper only sends strings). */
async function postBytes(
  path: string,
  key: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<ApiResponse> {
  const response = await fetch(`${stack().url}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, ...headers },
    body,
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed, headers: response.headers, text };
}

describe('Request bodies', () => {
  let tenant: Tenant;
  let key: string;
  before(async () => {
    tenant = await createTenant();
    key = tenant.merchant_secret_key;
  });

  it('rejects malformed JSON with 400 bad_request_error MALFORMED_JSON', async () => {
    for (const rawBody of ['{bad', '{"email": "a@b.co",}', '{"email": "a@b.co"']) {
      expectError(
        await api.post('/customers', { key, rawBody, headers: JSON_HEADERS }),
        400,
        'bad_request_error',
        'MALFORMED_JSON',
      );
    }
  });

  it('rejects JSON carrying a __proto__ key with 400, never 500', async () => {
    const res = await api.post('/customers', { key, rawBody: '{"__proto__": {"admin": true}}', headers: JSON_HEADERS });
    expectError(res, 400, 'bad_request_error', 'MALFORMED_JSON');
  });

  it('rejects a JSON array as the body with 400', async () => {
    const error = expectError(await api.post('/customers', { key, body: [customerInput()] }), 400, 'validation_error');
    expect(error.details).to.have.property('body');
  });

  it('rejects a JSON primitive as the body with 400', async () => {
    for (const rawBody of ['42', '"text"', 'true', 'null']) {
      const res = await api.post('/customers', { key, rawBody, headers: JSON_HEADERS });
      const error = expectError(res, 400);
      expect(['bad_request_error', 'validation_error'], rawBody).to.include(error.type);
    }
  });

  it('rejects a body in a non-JSON content type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const bodies: Array<[string, string]> = [
      ['text/plain', JSON.stringify(customerInput())],
      ['application/x-www-form-urlencoded', 'email=a%40b.co&name=Ada'],
      ['application/xml', '<customer/>'],
    ];
    for (const [contentType, rawBody] of bodies) {
      const res = await api.post('/customers', { key, rawBody, headers: { 'content-type': contentType } });
      expectError(res, 415, 'bad_request_error', 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('rejects a body over config.bodyLimitBytes with 413 PAYLOAD_TOO_LARGE', async () => {
    const limit = stack().config.bodyLimitBytes;
    expect(limit).to.equal(256 * 1024);
    const rawBody = JSON.stringify({ name: 'x'.repeat(limit) });
    expect(Buffer.byteLength(rawBody)).to.be.above(limit);
    expectError(
      await api.post('/customers', { key, rawBody, headers: JSON_HEADERS }),
      413,
      'bad_request_error',
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('reads a body of exactly config.bodyLimitBytes (it then fails validation, not the size check)', async () => {
    const limit = stack().config.bodyLimitBytes;
    const rawBody = JSON.stringify({ name: 'x'.repeat(limit - '{"name":""}'.length) });
    expect(Buffer.byteLength(rawBody)).to.equal(limit);
    const error = expectError(
      await api.post('/customers', { key, rawBody, headers: JSON_HEADERS }),
      400,
      'validation_error',
    );
    expect(error.details).to.have.property('name');
  });

  it('applies the size limit to the decompressed body, not the compressed bytes', async () => {
    const inflated = Buffer.from(JSON.stringify({ name: 'x'.repeat(stack().config.bodyLimitBytes) }));
    const res = await postBytes('/customers', key, gzipSync(inflated), { ...JSON_HEADERS, 'content-encoding': 'gzip' });
    expectError(res, 413, 'bad_request_error', 'PAYLOAD_TOO_LARGE');
  });

  it('rejects a body that does not decode with its Content-Encoding with a 4xx, never 500', async () => {
    const garbled = await postBytes('/customers', key, Buffer.from('{}'), {
      ...JSON_HEADERS,
      'content-encoding': 'gzip',
    });
    expectError(garbled, 400, 'bad_request_error');
    const unknown = await postBytes('/customers', key, Buffer.from('{}'), {
      ...JSON_HEADERS,
      'content-encoding': 'x-custom',
    });
    expectError(unknown, 415, 'bad_request_error', 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('accepts a gzip-compressed JSON body', async () => {
    const res = await postBytes('/customers', key, gzipSync(Buffer.from(JSON.stringify(customerInput()))), {
      ...JSON_HEADERS,
      'content-encoding': 'gzip',
    });
    expectWrapped(res, 201);
  });
});

describe('Pagination query parameters', () => {
  let key: string;
  before(async () => {
    ({ merchant_secret_key: key } = await createTenant());
  });

  const invalid: Array<[string, Record<string, string | number>]> = [
    ['page', { page: 0 }],
    ['page', { page: -1 }],
    ['page', { page: 'abc' }],
    ['page', { page: 1.5 }],
    ['page', { page: '' }],
    // The page cap (api/http/pagination.ts MAX_PAGE): a deeper page would make PostgreSQL walk the whole table.
    ['page', { page: 1001 }],
    ['page', { page: 1_000_000_000 }],
    ['limit', { limit: 0 }],
    ['limit', { limit: 101 }],
    ['limit', { limit: 'abc' }],
  ];
  for (const [field, query] of invalid) {
    it(`rejects ${new URLSearchParams(query as Record<string, string>).toString()} with 400 validation_error naming ${field}`, async () => {
      expectFieldErrors(await api.get('/customers', { key, query }), [field]);
    });
  }

  it('rejects the same parameter given twice with 400 naming it', async () => {
    expectFieldErrors(await api.get('/customers', { key, query: { page: ['1', '2'] } }), ['page']);
  });

  it('accepts the boundaries page=1, limit=1 and limit=100', async () => {
    for (const limit of [1, 100]) {
      const res = await api.get('/customers', { key, query: { page: 1, limit } });
      expectWrapped(res, 200, { list: true });
      expect(res.body.meta.pagination).to.include({ page: 1, limit });
    }
  });

  it('accepts the deepest page, page=1000 (an empty page past the end)', async () => {
    const res = await api.get('/customers', { key, query: { page: 1000, limit: 100 } });
    expect(expectWrapped(res, 200, { list: true })).to.deep.equal([]);
    expect(res.body.meta.pagination).to.include({ page: 1000, limit: 100 });
  });

  it('rejects an unknown query parameter with 400 naming it', async () => {
    expectFieldErrors(await api.get('/customers', { key, query: { sort: 'name' } }), ['sort']);
  });
});

describe('Stack traces', () => {
  it('never appear in any response, including 4xx and 5xx', async () => {
    const { merchant_secret_key: key } = await createTenant();
    const responses: ApiResponse[] = await Promise.all([
      api.post('/customers', { key, rawBody: '{bad', headers: JSON_HEADERS }),
      api.post('/customers', { key, rawBody: '7', headers: JSON_HEADERS }),
      api.post('/customers', { key, rawBody: 'x'.repeat(300 * 1024), headers: JSON_HEADERS }),
      api.post('/customers', { key, rawBody: 'hello', headers: { 'content-type': 'text/plain' } }),
      postBytes('/customers', key, Buffer.from('not gzip'), { ...JSON_HEADERS, 'content-encoding': 'gzip' }),
      postBytes('/customers', key, Buffer.from('{}'), { ...JSON_HEADERS, 'content-encoding': 'x-custom' }),
      api.post('/customers', { key, body: {} }),
      api.get('/customers', { key, query: { page: 'abc' } }),
      api.get('/customers/not-an-id', { key }),
      api.get('/customers'),
      api.get('/no-such-route'),
      request('PUT', '/customers', { key }),
      api.get('/customers', { key: 'sk_live_mer_not_a_real_key' }),
    ]);
    for (const res of responses) {
      expect(res.status, res.text).to.be.within(400, 599);
      requestIdOf(res);
      expectNoStackTrace(res);
      expect(res.status, `${res.status} ${res.text}`).to.be.below(500);
    }
  });
});

describe('DELETE request bodies', () => {
  it('refuses a DELETE with a non-empty body with 400, deleting nothing', async () => {
    const tenant = await createTenant();
    const created = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    const res = await api.delete(`/customers/${created.body.data.id}`, {
      key: tenant.merchant_secret_key,
      body: { force: true },
    });
    expect(res.status).to.equal(400);
    expect((await api.get(`/customers/${created.body.data.id}`, { key: tenant.merchant_secret_key })).status).to.equal(
      200,
    );
  });
});

describe('Query parameters on routes that take none', () => {
  it('refuses an unknown query parameter with 400 naming it', async () => {
    const tenant = await createTenant();
    const created = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    const res = await api.get(`/customers/${created.body.data.id}`, {
      key: tenant.merchant_secret_key,
      query: { expand: 'all' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.details).to.have.property('expand');
  });
});
