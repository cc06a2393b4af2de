import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput } from '../helpers/factories';

describe('smoke', () => {
  it('creates a customer', async () => {
    const tenant = await createTenant();
    const res = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const health = await api.get('/health');
    expect(health.status, JSON.stringify(health.body)).to.equal(200);
  });
});
