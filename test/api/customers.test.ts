import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, customerInput, uniqueEmail, type Tenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { newSession } from '../helpers/checkout';

async function createCustomer(tenant: Tenant, overrides: Record<string, unknown> = {}) {
  const res = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput(overrides) });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.data as { id: string; email: string };
}

describe('POST /api/v1/customers', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('returns 201 with the confirmation payload (id, merchant_id, email, name, created_at)', async () => {
    const res = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ email: 'Ada@Example.COM' }),
    });
    expect(res.status).to.equal(201);
    expect(res.body.success).to.equal(true);
    expect(Object.keys(res.body.data).sort()).to.deep.equal(['created_at', 'email', 'id', 'merchant_id', 'name']);
    expect(res.body.data.id).to.match(/^cust_/);
    expect(res.body.data.merchant_id).to.equal(tenant.merchant_id);
  });

  it('stores the email lowercase', async () => {
    const res = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ email: 'Grace.Hopper@Example.COM' }),
    });
    expect(res.body.data.email).to.equal('grace.hopper@example.com');
  });

  it('returns 200 with the existing customer when the email is already used by the merchant', async () => {
    const first = await createCustomer(tenant, { email: 'same@example.com' });
    const again = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ email: 'SAME@example.com', name: 'Other' }),
    });
    expect(again.status).to.equal(200);
    expect(again.body.data.id).to.equal(first.id);
    const list = await api.get('/customers', { key: tenant.merchant_secret_key });
    expect(list.body.meta.pagination.total).to.equal(1);
  });

  it('lets two merchants each have a customer with the same email', async () => {
    const other = await createTenant();
    const a = await createCustomer(tenant, { email: 'shared@example.com' });
    const b = await createCustomer(other, { email: 'shared@example.com' });
    expect(a.id).to.not.equal(b.id);
  });

  it('never returns document_number or billing_address', async () => {
    const created = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    const fetched = await api.get(`/customers/${created.body.data.id}`, { key: tenant.merchant_secret_key });
    for (const res of [created, fetched]) {
      expect(res.text).to.not.include('12345678909');
      expect(res.text).to.not.include('document_number');
      expect(res.text).to.not.include('billing_address');
      expect(res.text).to.not.include('Rua A');
    }
  });

  it('encrypts document_number at rest', async () => {
    const { id } = await createCustomer(tenant);
    const [row] = await stack()
      .orm.em.fork()
      .execute('select document_number_encrypted from customers where id = ?', [id]);
    expect(row.document_number_encrypted).to.be.a('string').and.to.match(/^v1\./);
    expect(row.document_number_encrypted).to.not.include('12345678909');
  });

  const requiredFields = ['email', 'name', 'phone', 'document_type', 'document_number', 'billing_address'];
  for (const field of requiredFields) {
    it(`rejects a body without ${field} with 400 naming the field`, async () => {
      const body = customerInput();
      delete body[field];
      const res = await api.post('/customers', { key: tenant.merchant_secret_key, body });
      expect(res.status).to.equal(400);
      expect(res.body.error.type).to.equal('validation_error');
      expect(res.body.error.details).to.have.property(field);
    });
  }

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['a malformed email', { email: 'not-an-email' }, 'email'],
    ['a phone that is not E.164', { phone: '11 98765-4321' }, 'phone'],
    ['a phone with fewer than 10 digits', { phone: '+123456789' }, 'phone'],
    ['an unknown document_type', { document_type: 'ssn' }, 'document_type'],
    ['a document_number over 40 characters', { document_number: '9'.repeat(41) }, 'document_number'],
    ['metadata over 5 KB serialized', { metadata: { blob: 'x'.repeat(5 * 1024) } }, 'metadata'],
    [
      'a billing_address without line_1',
      { billing_address: { zip_code: '1', city: 'c', state: 's', country: 'BR' } },
      'billing_address.line_1',
    ],
    [
      'a billing_address line_1 over 255 characters',
      { billing_address: { line_1: 'x'.repeat(256), zip_code: '1', city: 'c', state: 's', country: 'BR' } },
      'billing_address.line_1',
    ],
    [
      'a billing_address zip_code over 20 characters',
      { billing_address: { line_1: 'a', zip_code: '1'.repeat(21), city: 'c', state: 's', country: 'BR' } },
      'billing_address.zip_code',
    ],
    [
      'a billing_address city over 100 characters',
      { billing_address: { line_1: 'a', zip_code: '1', city: 'c'.repeat(101), state: 's', country: 'BR' } },
      'billing_address.city',
    ],
    [
      'a billing_address state over 100 characters',
      { billing_address: { line_1: 'a', zip_code: '1', city: 'c', state: 's'.repeat(101), country: 'BR' } },
      'billing_address.state',
    ],
    [
      'a billing_address country that is not ISO 3166-1 alpha-2',
      { billing_address: { line_1: 'a', zip_code: '1', city: 'c', state: 's', country: 'XX' } },
      'billing_address.country',
    ],
  ];
  for (const [what, overrides, field] of invalid) {
    it(`rejects ${what} with 400 and creates nothing`, async () => {
      const res = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput(overrides) });
      expect(res.status).to.equal(400);
      expect(res.body.error.type).to.equal('validation_error');
      expect(res.body.error.details).to.have.property(field);
      const list = await api.get('/customers', { key: tenant.merchant_secret_key });
      expect(list.body.meta.pagination.total).to.equal(0);
    });
  }

  it('accepts metadata just under 5 KB serialized', async () => {
    const res = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ metadata: { blob: 'x'.repeat(5 * 1024 - 20) } }),
    });
    expect(res.status).to.equal(201);
  });

  it('refuses an organization key with 403', async () => {
    const res = await api.post('/customers', {
      key: tenant.organization_secret_key,
      body: { ...customerInput(), merchant_id: tenant.merchant_id },
    });
    expect(res.status).to.equal(403);
    expect(res.body.error.type).to.equal('authorization_error');
  });
});

describe('GET /api/v1/customers', () => {
  it('lists newest first with the nested pagination object', async () => {
    const tenant = await createTenant();
    const first = await createCustomer(tenant);
    const second = await createCustomer(tenant);
    const res = await api.get('/customers', { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(200);
    expect(res.body.data.map((c: { id: string }) => c.id)).to.deep.equal([second.id, first.id]);
    expect(res.body.meta.pagination).to.deep.equal({
      page: 1,
      limit: 20,
      total: 2,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
  });

  it('filters by exact email, case-insensitively', async () => {
    const tenant = await createTenant();
    const target = await createCustomer(tenant, { email: 'find.me@example.com' });
    await createCustomer(tenant, { email: 'find.me.not@example.com' });
    const res = await api.get('/customers', {
      key: tenant.merchant_secret_key,
      query: { email: 'FIND.me@Example.com' },
    });
    expect(res.body.data.map((c: { id: string }) => c.id)).to.deep.equal([target.id]);
  });

  it("never lists another merchant's customers", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    await createCustomer(other);
    const res = await api.get('/customers', { key: tenant.merchant_secret_key });
    expect(res.body.data).to.deep.equal([]);
  });

  it('refuses an organization key with 403', async () => {
    const tenant = await createTenant();
    const res = await api.get('/customers', {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(res.status).to.equal(403);
  });
});

describe('GET /api/v1/customers/:customerId', () => {
  it('returns the customer object with every documented field', async () => {
    const tenant = await createTenant();
    const { id } = await createCustomer(tenant, { email: 'full@example.com' });
    const res = await api.get(`/customers/${id}`, { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({
      id,
      merchant_id: tenant.merchant_id,
      email: 'full@example.com',
      name: 'Ada Lovelace',
      phone: '+5511987654321',
      document_type: 'cpf',
    });
    expect(res.body.data.metadata).to.deep.equal({ plan: 'gold' });
    expect(Object.keys(res.body.data).sort()).to.deep.equal([
      'created_at',
      'document_type',
      'email',
      'id',
      'merchant_id',
      'metadata',
      'name',
      'phone',
      'updated_at',
    ]);
  });

  it('returns 404 RESOURCE_NOT_FOUND for an unknown id', async () => {
    const tenant = await createTenant();
    const res = await api.get('/customers/cust_doesnotexist000000000000', { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(404);
    expect(res.body.error).to.include({ type: 'not_found_error', code: 'RESOURCE_NOT_FOUND' });
  });

  it("returns 404 for another merchant's customer, never its data", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await createCustomer(other);
    const res = await api.get(`/customers/${foreign.id}`, { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(404);
    expect(res.text).to.not.include(foreign.email);
  });
});

describe('PATCH /api/v1/customers/:customerId', () => {
  it('updates the given fields, lowercasing the email', async () => {
    const tenant = await createTenant();
    const { id } = await createCustomer(tenant);
    const res = await api.patch(`/customers/${id}`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Ada King', email: 'Ada.King@Example.com', phone: '+14155550123' },
    });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({ name: 'Ada King', email: 'ada.king@example.com', phone: '+14155550123' });
  });

  it('replaces metadata instead of merging it', async () => {
    const tenant = await createTenant();
    const { id } = await createCustomer(tenant, { metadata: { a: 1, b: 2 } });
    const res = await api.patch(`/customers/${id}`, { key: tenant.merchant_secret_key, body: { metadata: { c: 3 } } });
    expect(res.body.data.metadata).to.deep.equal({ c: 3 });
  });

  it('re-encrypts a new document_number and never returns it', async () => {
    const tenant = await createTenant();
    const { id } = await createCustomer(tenant);
    const res = await api.patch(`/customers/${id}`, {
      key: tenant.merchant_secret_key,
      body: { document_number: 'AB1234567' },
    });
    expect(res.text).to.not.include('AB1234567');
    const [row] = await stack()
      .orm.em.fork()
      .execute('select document_number_encrypted from customers where id = ?', [id]);
    expect(row.document_number_encrypted).to.match(/^v1\./).and.not.include('AB1234567');
  });

  it('returns 409 CUSTOMER_EMAIL_EXISTS with details.existing_customer_id when the email belongs to another customer', async () => {
    const tenant = await createTenant();
    const holder = await createCustomer(tenant, { email: 'taken@example.com' });
    const mover = await createCustomer(tenant);
    const res = await api.patch(`/customers/${mover.id}`, {
      key: tenant.merchant_secret_key,
      body: { email: 'TAKEN@example.com', name: 'Changed' },
    });
    expect(res.status).to.equal(409);
    expect(res.body.error).to.include({ type: 'conflict_error', code: 'CUSTOMER_EMAIL_EXISTS' });
    expect(res.body.error.details).to.deep.equal({ existing_customer_id: holder.id });
    const unchanged = await api.get(`/customers/${mover.id}`, { key: tenant.merchant_secret_key });
    expect(unchanged.body.data.name).to.equal('Ada Lovelace');
  });

  it("keeps the customer's own email without conflict", async () => {
    const tenant = await createTenant();
    const { id, email } = await createCustomer(tenant);
    const res = await api.patch(`/customers/${id}`, { key: tenant.merchant_secret_key, body: { email } });
    expect(res.status).to.equal(200);
  });

  it('rejects invalid fields with 400 and changes nothing', async () => {
    const tenant = await createTenant();
    const { id } = await createCustomer(tenant);
    const res = await api.patch(`/customers/${id}`, {
      key: tenant.merchant_secret_key,
      body: { name: 'New', phone: '12345' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.details).to.have.property('phone');
    const unchanged = await api.get(`/customers/${id}`, { key: tenant.merchant_secret_key });
    expect(unchanged.body.data.name).to.equal('Ada Lovelace');
  });

  it("returns 404 for another merchant's customer and leaves it unchanged", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await createCustomer(other);
    const res = await api.patch(`/customers/${foreign.id}`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Hijacked' },
    });
    expect(res.status).to.equal(404);
    const unchanged = await api.get(`/customers/${foreign.id}`, { key: other.merchant_secret_key });
    expect(unchanged.body.data.name).to.equal('Ada Lovelace');
  });
});

describe('DELETE /api/v1/customers/:customerId', () => {
  it('returns 204 with an empty body and the customer is gone', async () => {
    const tenant = await createTenant();
    const { id } = await createCustomer(tenant);
    const res = await api.delete(`/customers/${id}`, { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(204);
    expect(res.text).to.equal('');
    const after = await api.get(`/customers/${id}`, { key: tenant.merchant_secret_key });
    expect(after.status).to.equal(404);
  });

  it('makes the email reusable', async () => {
    const tenant = await createTenant();
    const { id } = await createCustomer(tenant, { email: 'reuse@example.com' });
    await api.delete(`/customers/${id}`, { key: tenant.merchant_secret_key });
    const res = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ email: 'reuse@example.com' }),
    });
    expect(res.status).to.equal(201);
    expect(res.body.data.id).to.not.equal(id);
  });

  it('accepts an organization key with merchant_id', async () => {
    const tenant = await createTenant();
    const { id } = await createCustomer(tenant);
    const res = await api.delete(`/customers/${id}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: tenant.merchant_id },
    });
    expect(res.status).to.equal(204);
  });

  it('refuses an organization key without merchant_id with 403', async () => {
    const tenant = await createTenant();
    const { id } = await createCustomer(tenant);
    const res = await api.delete(`/customers/${id}`, { key: tenant.organization_secret_key });
    expect(res.status).to.equal(403);
    expect(res.body.error.type).to.equal('authorization_error');
  });

  it("returns 404 when an organization key names a sibling merchant that doesn't own the customer", async () => {
    const tenant = await createTenant();
    const sibling = await addMerchant(tenant);
    const { id } = await createCustomer(tenant);
    const res = await api.delete(`/customers/${id}`, {
      key: tenant.organization_secret_key,
      query: { merchant_id: sibling.merchantId },
    });
    expect(res.status).to.equal(404);
  });

  // Found by the fuzzer on a populated tenant: the checkout session's reference made the delete a 500.
  it('keeps a customer a checkout session names: 409 RESOURCE_IN_USE, not a 500', async () => {
    const tenant = await createTenant();
    const { id } = await createCustomer(tenant);
    await newSession(tenant, { customer_id: id });
    const res = await api.delete(`/customers/${id}`, { key: tenant.merchant_secret_key });
    expect(res.status, res.text).to.equal(409);
    expect(res.body.error.code).to.equal('RESOURCE_IN_USE');
    expect((await api.get(`/customers/${id}`, { key: tenant.merchant_secret_key })).status).to.equal(200);
  });

  it("returns 404 for another merchant's customer and keeps it", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await createCustomer(other, { email: uniqueEmail() });
    const res = await api.delete(`/customers/${foreign.id}`, { key: tenant.merchant_secret_key });
    expect(res.status).to.equal(404);
    expect((await api.get(`/customers/${foreign.id}`, { key: other.merchant_secret_key })).status).to.equal(200);
  });
});
