/**
 * Every /api/v1 answer carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`: token
 * pairs, secrets shown once and customer data must not be cached by a browser or a proxy, errors included.
 */
import { expect } from 'chai';
import { api, type ApiResponse } from '../helpers/http';
import { createTenant, customerInput } from '../helpers/factories';
import { createMerchantUser, signIn } from '../helpers/dashboard';

function expectNoStore(res: ApiResponse): void {
  expect(res.headers.get('cache-control'), res.text).to.equal('no-store');
  expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
}

describe('API responses are never cached', () => {
  it('token responses, secrets shown once, customer data and errors carry Cache-Control: no-store and nosniff', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const login = await api.post('/auth/merchant/login', { body: { email: user.email, password: user.password } });
    expect(login.status).to.equal(200);
    expectNoStore(login);
    const refreshed = await api.post('/auth/refresh', { body: { refresh_token: login.body.refresh_token } });
    expectNoStore(refreshed);
    const customer = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    expect(customer.status).to.equal(201);
    expectNoStore(customer);
    expectNoStore(await api.get('/customers/cust_missing', { key: tenant.merchant_secret_key }));
    expectNoStore(await api.get('/nowhere', { key: tenant.merchant_secret_key }));
    await signIn('merchant', user);
  });
});
