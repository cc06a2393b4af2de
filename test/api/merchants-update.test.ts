/** PATCH /merchants/:id (Document 3): editable fields, statuses, and the card-network enrollment lock. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors } from '../helpers/envelope';
import { activityOf, ADDRESS, createMerchant, MERCHANT_KEYS, rows, setEnrolled, unique } from '../helpers/merchants';

const NEW_ADDRESS = {
  line_1: '1 Market St',
  line_2: 'Suite 300',
  zip_code: '94105',
  city: 'San Francisco',
  state: 'CA',
  country: 'US',
};

describe('PATCH /api/v1/merchants/:id', () => {
  let tenant: Tenant;
  let merchant: any;
  const patch = (body: unknown, id = merchant.id, key = tenant.organization_secret_key) =>
    api.patch(`/merchants/${id}`, { key, body });

  beforeEach(async () => {
    tenant = await createTenant();
    merchant = await createMerchant(tenant);
  });

  it('updates every editable field and returns the bare merchant', async () => {
    const body = {
      name: 'Renamed Shop',
      external_reference: 'erp-9',
      business_registration_number: '98-7654321',
      mcc: '5999',
      website: 'http://renamed.example.org/home',
      phone_number: '+1 (415) 555-0199',
      address: NEW_ADDRESS,
      status: 'suspended',
    };
    const res = await patch(body);
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal(MERCHANT_KEYS);
    const { address: _address, ...scalars } = body;
    expect(res.body).to.include({ ...scalars, phone_number: '+14155550199' });
    expect(res.body.address).to.deep.equal(NEW_ADDRESS);
    expect(res.body.slug).to.equal(merchant.slug);
    expect((await api.get(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key })).body).to.deep.equal(
      res.body,
    );
  });

  for (const status of ['inactive', 'suspended', 'active']) {
    it(`sets status ${status}`, async () => {
      if (status === 'active') await rows(`update merchants set status = 'inactive' where id = ?`, [merchant.id]);
      expect((await patch({ status })).body.status).to.equal(status);
    });
  }

  it('leaves fields that are not sent unchanged and bumps updated_at', async () => {
    const before = (await api.get(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const after = (await patch({ mcc: '1234' })).body;
    expect({ ...after, mcc: before.mcc, updated_at: before.updated_at }).to.deep.equal(before);
    expect(Date.parse(after.updated_at)).to.be.greaterThan(Date.parse(before.updated_at));
  });

  it('clears external_reference and website with null', async () => {
    const res = await patch({ external_reference: null, website: null });
    expect(res.body).to.include({ external_reference: null, website: null });
  });

  it('replaces the address as a whole (line_2 omitted becomes null)', async () => {
    await patch({ address: NEW_ADDRESS });
    const res = await patch({ address: { ...NEW_ADDRESS, line_2: undefined } });
    expect(res.body.address).to.deep.equal({ ...NEW_ADDRESS, line_2: null });
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown status', { status: 'closed' }, 'status'],
    ['a null name', { name: null }, 'name'],
    ['a name of punctuation only', { name: '!!!' }, 'name'],
    ['a null mcc', { mcc: null }, 'mcc'],
    ['a three-digit mcc', { mcc: '123' }, 'mcc'],
    ['a phone number without a country code', { phone_number: '415 555 0123' }, 'phone_number'],
    ['an unknown country', { address: { ...ADDRESS, country: 'XX' } }, 'address.country'],
    ['a slug (not editable)', { slug: 'new-slug' }, 'slug'],
    ['primary_email (not editable)', { primary_email: 'x@example.com' }, 'primary_email'],
    ['an unknown field', { network_enrolled: false }, 'network_enrolled'],
  ];
  for (const [what, body, field] of invalid) {
    it(`rejects ${what} with 400 naming ${field} and changes nothing`, async () => {
      const before = (await api.get(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key })).body;
      expectFieldErrors(await patch({ ...body, external_reference: 'changed' }), [field]);
      expect((await api.get(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key })).body).to.deep.equal(
        before,
      );
    });
  }

  it("returns 404 for another organization's merchant, changing nothing", async () => {
    const other = await createTenant();
    expectError(await patch({ status: 'suspended' }, other.merchant_id), 404, 'not_found_error');
    const [row] = await rows('select status from merchants where id = ?', [other.merchant_id]);
    expect(row.status).to.equal('active');
  });

  it('refuses a merchant key with 403', async () => {
    expectError(
      await patch({ status: 'inactive' }, tenant.merchant_id, tenant.merchant_secret_key),
      403,
      'authorization_error',
    );
  });

  it('refuses an organization key without merchants:write with 403', async () => {
    const key = await keyWithScopes(tenant, ['merchants:read'], 'organization');
    expectError(await patch({ status: 'inactive' }, merchant.id, key), 403, 'authorization_error');
  });

  describe('after card-network enrollment', () => {
    beforeEach(async () => {
      await setEnrolled(merchant.id);
    });

    const lockedChanges: Array<[string, unknown]> = [
      ['name', 'Another Name'],
      ['website', 'https://another.example.com'],
      ['mcc', '1111'],
      ['address', NEW_ADDRESS],
    ];
    for (const [field, value] of lockedChanges) {
      it(`refuses a change of ${field} with 409 MERCHANT_FIELD_LOCKED naming it`, async () => {
        const error = expectError(await patch({ [field]: value }), 409, 'conflict_error', 'MERCHANT_FIELD_LOCKED');
        expect(error.details).to.deep.equal({ fields: [field] });
      });
    }

    it('refuses clearing the website too', async () => {
      expectError(await patch({ website: null }), 409, 'conflict_error', 'MERCHANT_FIELD_LOCKED');
    });

    it('names every locked field sent, and applies none of the request (not even editable fields)', async () => {
      const before = (await api.get(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key })).body;
      const error = expectError(
        await patch({ name: 'X Shop', mcc: '1111', status: 'suspended' }),
        409,
        'conflict_error',
        'MERCHANT_FIELD_LOCKED',
      );
      expect(error.details.fields).to.have.members(['name', 'mcc']);
      expect((await api.get(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key })).body).to.deep.equal(
        before,
      );
    });

    it('accepts locked fields sent with their current values as a no-op', async () => {
      const before = (await api.get(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key })).body;
      const res = await patch({ name: before.name, website: before.website, mcc: before.mcc, address: { ...ADDRESS } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal(before);
      expect((await activityOf(merchant.id)).filter((row) => row.action === 'merchant.updated')).to.have.length(0);
    });

    it('still lets status, phone_number, business_registration_number and external_reference change', async () => {
      const body = {
        status: 'suspended',
        phone_number: '+44 20 7946 0000',
        business_registration_number: 'GB123',
        external_reference: unique('ref'),
      };
      const res = await patch(body);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ ...body, phone_number: '+442079460000' });
    });
  });
});
