/** Merchants (Document 3): create, list and get, with an organization key only. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, ISO_UTC_MS } from '../helpers/envelope';
import { ADDRESS, createMerchant, MERCHANT_KEYS, merchantBody, RECEIPT_KEYS, rows, unique } from '../helpers/merchants';

describe('POST /api/v1/merchants', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('returns 201 with the bare compact receipt, status active', async () => {
    const body = merchantBody({ external_reference: 'erp-42' });
    const res = await api.post('/merchants', { key: tenant.organization_secret_key, body });
    expect(res.status, res.text).to.equal(201);
    expect(Object.keys(res.body).sort()).to.deep.equal(RECEIPT_KEYS);
    expect(res.body.id).to.match(/^mrc_/);
    expect(res.body).to.include({
      organization_id: tenant.organization_id,
      name: body.name,
      external_reference: 'erp-42',
      status: 'active',
    });
    expect(res.body.created_at).to.match(ISO_UTC_MS);
  });

  it('stores every field, normalising the phone number to E.164 and line_2 to null', async () => {
    const receipt = await createMerchant(tenant, { mcc: '0742', phone_number: '+1 415-555-0123' });
    const merchant = (await api.get(`/merchants/${receipt.id}`, { key: tenant.organization_secret_key })).body;
    expect(merchant).to.include({
      mcc: '0742',
      phone_number: '+14155550123',
      business_registration_number: '12.345.678/0001-90',
      website: 'https://shop.example.com',
    });
    expect(merchant.address).to.deep.equal({ ...ADDRESS, line_2: null });
  });

  const phones: Array<[string, string]> = [
    ['+55 (11) 98765-4321', '+5511987654321'],
    ['+1 415-555-0123', '+14155550123'],
    ['0044 (0)20 7946 0958', '+442079460958'],
    ['+49.30.123456', '+4930123456'],
    ['+5511987654321', '+5511987654321'],
  ];
  for (const [input, e164] of phones) {
    it(`normalises the phone number "${input}" to ${e164}`, async () => {
      const receipt = await createMerchant(tenant, { phone_number: input });
      const [row] = await rows('select phone_number from merchants where id = ?', [receipt.id]);
      expect(row.phone_number).to.equal(e164);
    });
  }

  it('lets only name and primary_email be sent; the rest are null', async () => {
    const res = await api.post('/merchants', {
      key: tenant.organization_secret_key,
      body: { name: unique('Tiny'), primary_email: `${unique('o')}@example.com` },
    });
    expect(res.status, res.text).to.equal(201);
    const merchant = (await api.get(`/merchants/${res.body.id}`, { key: tenant.organization_secret_key })).body;
    expect(merchant).to.include({
      external_reference: null,
      business_registration_number: null,
      mcc: null,
      phone_number: null,
      address: null,
      website: null,
    });
  });

  it('generates a URL-safe slug from the name when none is given', async () => {
    const receipt = await createMerchant(tenant, { name: `Café São Paulo ${unique('x')}!` });
    expect(receipt.slug).to.match(/^cafe-sao-paulo-[a-z0-9-]+$/);
    expect(receipt.slug).not.to.match(/-$/);
  });

  it('generates a suffixed slug when the plain one is taken, even by another organization', async () => {
    const name = unique('Twin');
    const first = await createMerchant(await createTenant(), { name });
    const second = await createMerchant(tenant, { name });
    expect(first.slug).to.equal(name.toLowerCase());
    expect(second.slug).to.match(new RegExp(`^${name.toLowerCase()}-[a-z0-9]{6}$`));
  });

  it('gives concurrent creates with the same name distinct slugs, all 201', async () => {
    const body = { name: unique('Rush'), primary_email: `${unique('o')}@example.com` };
    const results = await Promise.all(
      Array.from({ length: 4 }, () => api.post('/merchants', { key: tenant.organization_secret_key, body })),
    );
    for (const res of results) expect(res.status, res.text).to.equal(201);
    expect(new Set(results.map((res) => res.body.slug)).size).to.equal(4);
    // The same primary_email raced too: one user, an owner membership on each merchant.
    const users = await rows('select id from merchant_users where email = ?', [body.primary_email]);
    expect(users).to.have.length(1);
    expect(await rows('select id from merchant_members where user_id = ?', [users[0].id])).to.have.length(4);
  });

  it('generates a slug for a name without ASCII letters', async () => {
    const receipt = await createMerchant(tenant, { name: '日本商店' });
    expect(receipt.slug).to.match(/^merchant(-[a-z0-9]{6})?$/);
  });

  it('keeps a given slug', async () => {
    const slug = unique('my-shop');
    expect((await createMerchant(tenant, { slug })).slug).to.equal(slug);
  });

  it('returns 409 MERCHANT_SLUG_TAKEN for a slug any merchant uses, creating nothing (not even the owner)', async () => {
    const slug = unique('taken');
    await createMerchant(await createTenant(), { slug });
    const body = merchantBody({ slug });
    const error = expectError(
      await api.post('/merchants', { key: tenant.organization_secret_key, body }),
      409,
      'conflict_error',
      'MERCHANT_SLUG_TAKEN',
    );
    expect(error.details).to.deep.equal({ slug });
    expect(await rows('select id from merchants where organization_id = ?', [tenant.organization_id])).to.have.length(
      1,
    );
    expect(await rows('select id from merchant_users where email = ?', [body.primary_email])).to.have.length(0);
  });

  it('lets exactly one of several concurrent creates with the same slug win; the rest get 409', async () => {
    const slug = unique('race');
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        api.post('/merchants', { key: tenant.organization_secret_key, body: merchantBody({ slug }) }),
      ),
    );
    expect(results.filter((res) => res.status === 201)).to.have.length(1);
    for (const res of results.filter((r) => r.status !== 201))
      expectError(res, 409, 'conflict_error', 'MERCHANT_SLUG_TAKEN');
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['a name without letters or digits ("!!!")', { name: '!!!' }, 'name'],
    ['a blank name', { name: '   ' }, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['an mcc with a letter ("12a4")', { mcc: '12a4' }, 'mcc'],
    ['a five-digit mcc ("12345")', { mcc: '12345' }, 'mcc'],
    ['a numeric mcc', { mcc: 5734 }, 'mcc'],
    ['a phone number that is not one', { phone_number: 'call me maybe' }, 'phone_number'],
    ['a phone number without a country code', { phone_number: '(415) 555 0123' }, 'phone_number'],
    ['a phone number that is too short', { phone_number: '+1 234' }, 'phone_number'],
    ['a phone number that is too long', { phone_number: '+1 2345 6789 0123 4567' }, 'phone_number'],
    ['a phone number with a plus inside', { phone_number: '+55 11+98765-4321' }, 'phone_number'],
    ['a website that is not a URL', { website: 'my shop' }, 'website'],
    ['an ftp website', { website: 'ftp://shop.example.com' }, 'website'],
    ['a website with credentials', { website: 'https://user:pw@shop.example.com' }, 'website'],
    ['an unknown country ("XX")', { address: { ...ADDRESS, country: 'XX' } }, 'address.country'],
    ['a lowercase country', { address: { ...ADDRESS, country: 'br' } }, 'address.country'],
    ['an address without a city', { address: { ...ADDRESS, city: undefined } }, 'address.city'],
    ['a zip code over 20 characters', { address: { ...ADDRESS, zip_code: '1'.repeat(21) } }, 'address.zip_code'],
    ['an unknown address field', { address: { ...ADDRESS, district: 'Centro' } }, 'address.district'],
    ['an uppercase slug', { slug: 'My-Shop' }, 'slug'],
    ['a slug with spaces', { slug: 'my shop' }, 'slug'],
    ['an invalid primary_email', { primary_email: 'not-an-email' }, 'primary_email'],
    ['a status (not settable on create)', { status: 'suspended' }, 'status'],
    ['an unknown field', { currency: 'BRL' }, 'currency'],
  ];
  for (const [what, overrides, field] of invalid) {
    it(`rejects ${what} with 400 naming ${field} and creates nothing`, async () => {
      const body = merchantBody(overrides);
      expectFieldErrors(await api.post('/merchants', { key: tenant.organization_secret_key, body }), [field]);
      expect(await rows('select id from merchants where organization_id = ?', [tenant.organization_id])).to.have.length(
        1,
      );
      expect(
        await rows('select id from merchant_users where organization_id = ?', [tenant.organization_id]),
      ).to.have.length(0);
    });
  }

  it('names every bad field at once', async () => {
    const res = await api.post('/merchants', {
      key: tenant.organization_secret_key,
      body: merchantBody({ name: '!!!', phone_number: '12', website: 'nope' }),
    });
    expectFieldErrors(res, ['name', 'phone_number', 'website']);
  });

  for (const field of ['name', 'primary_email']) {
    it(`rejects a body without ${field} with 400 naming it`, async () => {
      const body = merchantBody();
      delete body[field];
      expectFieldErrors(await api.post('/merchants', { key: tenant.organization_secret_key, body }), [field]);
    });
  }

  it('refuses a merchant key with 403', async () => {
    expectError(
      await api.post('/merchants', { key: tenant.merchant_secret_key, body: merchantBody() }),
      403,
      'authorization_error',
    );
  });

  it('refuses an organization key without merchants:write with 403', async () => {
    const key = await keyWithScopes(tenant, ['merchants:read'], 'organization');
    expectError(await api.post('/merchants', { key, body: merchantBody() }), 403, 'authorization_error');
  });

  it('replays an Idempotency-Key with 200 and the same receipt, creating one merchant and one owner', async () => {
    const body = merchantBody();
    const headers = { 'Idempotency-Key': unique('mrc') };
    const first = await api.post('/merchants', { key: tenant.organization_secret_key, body, headers });
    const again = await api.post('/merchants', { key: tenant.organization_secret_key, body, headers });
    expect(first.status, first.text).to.equal(201);
    expect(again.status).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect(await rows('select id from merchants where organization_id = ?', [tenant.organization_id])).to.have.length(
      2,
    );
    expect(await rows('select id from merchant_members where merchant_id = ?', [first.body.id])).to.have.length(1);
  });

  it('answers 409 IDEMPOTENCY_KEY_CONFLICT when the same key comes with another body', async () => {
    const headers = { 'Idempotency-Key': unique('mrc') };
    await api.post('/merchants', { key: tenant.organization_secret_key, body: merchantBody(), headers });
    expectError(
      await api.post('/merchants', { key: tenant.organization_secret_key, body: merchantBody(), headers }),
      409,
      'conflict_error',
      'IDEMPOTENCY_KEY_CONFLICT',
    );
  });
});

describe('GET /api/v1/merchants', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it("lists the organization's merchants newest first, bare with meta.pagination", async () => {
    const a = await createMerchant(tenant);
    const b = await createMerchant(tenant);
    await createMerchant(await createTenant());
    const res = await api.get('/merchants', { key: tenant.organization_secret_key });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(['data', 'meta']);
    expect(res.body.meta).to.deep.equal({
      pagination: { page: 1, limit: 20, total: 3, total_pages: 1, has_next: false, has_prev: false },
    });
    expect(res.body.data.map((m: any) => m.id)).to.deep.equal([b.id, a.id, tenant.merchant_id]);
    for (const merchant of res.body.data) expect(Object.keys(merchant).sort()).to.deep.equal(MERCHANT_KEYS);
  });

  it('filters by status, repeated or comma-separated', async () => {
    const inactive = await createMerchant(tenant);
    const suspended = await createMerchant(tenant);
    await rows(`update merchants set status = 'inactive' where id = ?`, [inactive.id]);
    await rows(`update merchants set status = 'suspended' where id = ?`, [suspended.id]);
    const one = await api.get('/merchants', { key: tenant.organization_secret_key, query: { status: 'inactive' } });
    expect(one.body.data.map((m: any) => m.id)).to.deep.equal([inactive.id]);
    const repeated = await api.get('/merchants', {
      key: tenant.organization_secret_key,
      query: { status: ['inactive', 'suspended'] },
    });
    const comma = await api.get('/merchants', {
      key: tenant.organization_secret_key,
      query: { status: 'inactive,suspended' },
    });
    expect(repeated.body.data.map((m: any) => m.id)).to.deep.equal([suspended.id, inactive.id]);
    expect(comma.body.data).to.deep.equal(repeated.body.data);
  });

  it('pages with page and limit', async () => {
    const a = await createMerchant(tenant);
    await createMerchant(tenant);
    const res = await api.get('/merchants', { key: tenant.organization_secret_key, query: { page: 2, limit: 1 } });
    expect(res.body.data.map((m: any) => m.id)).to.deep.equal([a.id]);
    expect(res.body.meta.pagination).to.deep.equal({
      page: 2,
      limit: 1,
      total: 3,
      total_pages: 3,
      has_next: true,
      has_prev: true,
    });
  });

  const badQueries: Array<[string, Record<string, string>, string]> = [
    ['an unknown status', { status: 'closed' }, 'status'],
    ['limit 101', { limit: '101' }, 'limit'],
    ['page 0', { page: '0' }, 'page'],
    ['an unknown parameter', { merchant_id: 'mrc_x' }, 'merchant_id'],
  ];
  for (const [what, query, field] of badQueries) {
    it(`rejects ${what} with 400 naming ${field}`, async () => {
      expectFieldErrors(await api.get('/merchants', { key: tenant.organization_secret_key, query }), [field]);
    });
  }

  it('refuses a merchant key with 403', async () => {
    expectError(await api.get('/merchants', { key: tenant.merchant_secret_key }), 403, 'authorization_error');
  });

  it('refuses an organization key without merchants:read with 403', async () => {
    const key = await keyWithScopes(tenant, ['merchants:write'], 'organization');
    expectError(await api.get('/merchants', { key }), 403, 'authorization_error');
  });
});

describe('GET /api/v1/merchants/:id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('returns the bare merchant object', async () => {
    const body = merchantBody();
    const receipt = (await api.post('/merchants', { key: tenant.organization_secret_key, body })).body;
    const res = await api.get(`/merchants/${receipt.id}`, { key: tenant.organization_secret_key });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal(MERCHANT_KEYS);
    expect(res.body).to.include({
      id: receipt.id,
      organization_id: tenant.organization_id,
      name: body.name,
      slug: receipt.slug,
      status: 'active',
      external_reference: body.external_reference,
      phone_number: '+5511987654321',
      created_at: receipt.created_at,
    });
    expect(res.body.updated_at).to.match(ISO_UTC_MS);
  });

  it("returns 404 for another organization's merchant", async () => {
    const other = await createTenant();
    expectError(
      await api.get(`/merchants/${other.merchant_id}`, { key: tenant.organization_secret_key }),
      404,
      'not_found_error',
    );
  });

  it('returns 404 for an unknown or malformed id', async () => {
    expectError(
      await api.get('/merchants/mrc_doesnotexist', { key: tenant.organization_secret_key }),
      404,
      'not_found_error',
    );
    expectError(await api.get('/merchants/cust_123', { key: tenant.organization_secret_key }), 404, 'not_found_error');
  });

  it("refuses a merchant key with 403, even for the key's own merchant", async () => {
    expectError(
      await api.get(`/merchants/${tenant.merchant_id}`, { key: tenant.merchant_secret_key }),
      403,
      'authorization_error',
    );
  });
});
