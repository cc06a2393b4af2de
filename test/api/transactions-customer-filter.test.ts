/** GET /transactions?customer_id= lists that customer's transactions only (as Stripe's customer filter). */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { createCustomer } from '../helpers/vault';

describe('GET /transactions — customer_id filter', () => {
  it("lists only the named customer's transactions", async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const [ada, bob] = [await createCustomer(tenant), await createCustomer(tenant)];
    const mine = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant), { customer_id: ada })), 201);
    expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant), { customer_id: bob })), 201);
    expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant))), 201);
    const listed = expectWrapped(
      await api.get(`/transactions?customer_id=${ada}`, { key: tenant.merchant_secret_key }),
      200,
      { list: true },
    );
    expect(listed.map((tx: any) => tx.id)).to.deep.equal([mine.id]);
  });

  it('refuses a customer_id that is not a customer id', async () => {
    const tenant = await createTenant();
    expectFieldErrors(await api.get('/transactions?customer_id=ord_x', { key: tenant.merchant_secret_key }), [
      'customer_id',
    ]);
  });
});
