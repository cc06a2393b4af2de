/**
 * Text PostgreSQL cannot store — U+0000 anywhere, an unpaired UTF-16 surrogate in JSON — is a 400 validation
 * error naming the field, never a 500 (found by the fuzzer: a NUL in a metadata key of POST /products).
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';

const MESSAGE = 'must not contain the NUL character or an unpaired surrogate';

describe('Unstorable text in requests', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  // Raw bodies: JSON.stringify would send the same escapes, but spelled out they document what is sent.
  const cases: Array<[string, string, string]> = [
    [
      'a NUL in a metadata key',
      '{"name":"E-book","type":"one_time","status":"active","metadata":{"a\\u0000b":1}}',
      'metadata',
    ],
    [
      'a NUL in a metadata value',
      '{"name":"E-book","type":"one_time","status":"active","metadata":{"sku":"a\\u0000b"}}',
      'metadata.sku',
    ],
    [
      'an unpaired high surrogate in metadata',
      '{"name":"E-book","type":"one_time","status":"active","metadata":{"sku":"\\ud83d"}}',
      'metadata.sku',
    ],
    [
      'an unpaired low surrogate in a key',
      '{"name":"E-book","type":"one_time","status":"active","metadata":{"\\ude00":true}}',
      'metadata',
    ],
    ['a NUL in a plain text field', '{"name":"E\\u0000book","type":"one_time","status":"active"}', 'name'],
  ];
  for (const [what, rawBody, field] of cases) {
    it(`POST /products with ${what}: 400 naming ${field}`, async () => {
      const res = await api.post('/products', {
        key: tenant.merchant_secret_key,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      const error = expectError(res, 400, 'validation_error');
      expect(error.details).to.deep.equal({ [field]: [MESSAGE] });
    });
  }

  it('a paired surrogate (an emoji) is stored and read back unchanged', async () => {
    const res = await api.post('/products', {
      key: tenant.merchant_secret_key,
      body: { name: 'Smile 😀', type: 'one_time', status: 'active', metadata: { '😀': '😀' } },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.name).to.equal('Smile 😀');
    expect(res.body.data.metadata).to.deep.equal({ '😀': '😀' });
  });

  it('a NUL in a query parameter: 400 naming it', async () => {
    const res = await api.get('/customers', {
      key: tenant.merchant_secret_key,
      query: { email: 'a\u0000@example.com' },
    });
    const error = expectError(res, 400, 'validation_error');
    expect(error.details).to.have.property('email');
  });

  it('a NUL in a customer name is refused on create too (another area, the same rule)', async () => {
    const res = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ name: 'A\u0000B' }),
    });
    const error = expectError(res, 400, 'validation_error');
    expect(error.details).to.deep.equal({ name: [MESSAGE] });
  });
});
