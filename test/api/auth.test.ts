import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, customerInput, keyWithScopes, type Tenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { hashSecret } from '../../domain/platform/crypto';

describe('API-key authentication (401)', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  const expect401 = (res: { status: number; body: any }) => {
    expect(res.status).to.equal(401);
    expect(res.body.error).to.include({ type: 'authentication_error', code: 'INVALID_CREDENTIALS' });
  };

  it('rejects a request without an Authorization header', async () => {
    expect401(await api.get('/customers'));
  });

  it('rejects a non-Bearer Authorization header', async () => {
    expect401(await api.get('/customers', { headers: { authorization: `Basic ${tenant.merchant_secret_key}` } }));
  });

  it('rejects a malformed key', async () => {
    expect401(await api.get('/customers', { key: 'sk_live_mer_short' }));
  });

  it('rejects a well-formed key that does not exist', async () => {
    expect401(await api.get('/customers', { key: `sk_live_mer_${'A'.repeat(32)}` }));
  });

  it('rejects a revoked key', async () => {
    const key = await keyWithScopes(tenant, ['customers:read']);
    await stack()
      .orm.em.fork()
      .execute(`update api_keys set status = 'revoked', revoked_at = now() where secret_hash = ?`, [hashSecret(key)]);
    expect401(await api.get('/customers', { key }));
  });

  it('stores only a hash of each key', async () => {
    const rows = await stack()
      .orm.em.fork()
      .execute('select * from api_keys where organization_id = ?', [tenant.organization_id]);
    const dump = JSON.stringify(rows);
    for (const key of [tenant.merchant_secret_key, tenant.organization_secret_key, tenant.merchant_public_key]) {
      expect(dump).to.not.include(key);
    }
  });
});

describe('API-key authorization (403)', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  const expect403 = (res: { status: number; body: any }) => {
    expect(res.status).to.equal(403);
    expect(res.body.error).to.include({ type: 'authorization_error', code: 'INSUFFICIENT_PERMISSIONS' });
  };

  it('refuses a key that lacks the required scope', async () => {
    const readOnly = await keyWithScopes(tenant, ['customers:read']);
    expect403(await api.post('/customers', { key: readOnly, body: customerInput() }));
    expect((await api.get('/customers', { key: readOnly })).status).to.equal(200);
  });

  it('refuses a public key on a secret-key endpoint', async () => {
    expect403(await api.get('/customers', { key: tenant.merchant_public_key }));
  });

  it('refuses an organization key on a merchant-key-only endpoint', async () => {
    expect403(
      await api.get('/customers', { key: tenant.organization_secret_key, query: { merchant_id: tenant.merchant_id } }),
    );
  });

  it('refuses an organization key that does not name merchant_id', async () => {
    expect403(await api.delete('/customers/cust_000000000000000000000000', { key: tenant.organization_secret_key }));
  });

  it("refuses an organization key naming another organization's merchant", async () => {
    const other = await createTenant();
    expect403(
      await api.delete('/customers/cust_000000000000000000000000', {
        key: tenant.organization_secret_key,
        query: { merchant_id: other.merchant_id },
      }),
    );
  });

  it('refuses a merchant key that names a different merchant', async () => {
    const sibling = await addMerchant(tenant);
    expect403(
      await api.delete('/customers/cust_000000000000000000000000', {
        key: tenant.merchant_secret_key,
        query: { merchant_id: sibling.merchantId },
      }),
    );
  });

  it('gives each merchant key its own merchant: a sibling merchant sees none of the data', async () => {
    const sibling = await addMerchant(tenant);
    const created = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    const res = await api.get(`/customers/${created.body.data.id}`, { key: sibling.merchantKey });
    expect(res.status).to.equal(404);
  });
});
